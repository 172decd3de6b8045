"""Egress: pods reach no public address through a NetworkPolicy, and Azure stores and registries that have
private endpoints in the stack accept no traffic from public networks.

Public means: not wholly inside the private ranges a VPC or VNet may use (RFC 1918 and RFC 6598 shared space).
An `ipBlock` of 0.0.0.0/0 with private ranges cut out is still all the public internet. An egress rule without
`to` lets pods reach every address. S3 has no network switch of its own: its public-access block is
SAHAB-AWS-020, and the VPC's S3 endpoints carry a policy limited to the fleet's buckets.
"""

from __future__ import annotations

import ipaddress

from ..core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    describe,
    iso27001,
    items,
    known,
    lookup,
    pdpl,
    rule,
)

NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
STORAGE_ACCOUNT = "azure-native:storage:StorageAccount"
VAULT = "azure-native:keyvault:Vault"
REGISTRY = "azure-native:containerregistry:Registry"
PRIVATE_ENDPOINT = "azure-native:network:PrivateEndpoint"
# RFC 1918, shared address space, IPv6 unique local addresses (an on-prem site on ULA), and loopback (a site whose
# servers answer on it, as the test sites do): none of them leaves the site's own network. The IPv4 ranges but
# loopback are components/egress.py's too (the pack ships without components; tests/components/network/test_egress.py
# checks).
PRIVATE_RANGES = tuple(ipaddress.ip_network(r) for r in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
                                                          "100.64.0.0/10", "fc00::/7", "127.0.0.0/8", "::1/128"))
EXFILTRATION = (pdpl("Art. 22 (cross-border transfer)"), iso27001("A.8.20"), iso27001("A.8.22"))


def public_block(cidr: str) -> bool:
    """Whether `cidr` holds any address outside the private ranges (an unparsable block counts as public)."""
    try:
        net = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return True
    return not any(net.version == p.version and net.subnet_of(p) for p in PRIVATE_RANGES)


@rule(id="SAHAB-K8S-020", name="kubernetes-networking-networkpolicy-no-public-egress",
      title="NetworkPolicies open no egress to public addresses",
      description="No egress rule of a NetworkPolicy lets pods reach a public address: every `ipBlock` lies "
                  "inside 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7 or loopback, and "
                  "every rule names its destinations (`to`); a rule without `to` allows every address.",
      remediation="Allow the private range of the storage endpoints (the VPC or VNet) instead of a public block, "
                  "and give every egress rule a `to`; reach cloud services through VPC or private endpoints.",
      severity=Severity.HIGH, frameworks=EXFILTRATION,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE,
      types=(NETWORK_POLICY,))
def k8s_no_public_egress(view: ResourceView, ctx: Context):
    for i, egress in enumerate(items(view.props, "spec", "egress")):
        if egress is UNKNOWN:
            yield from ctx.still_unknown(f"`spec.egress[{i}]`")
            continue
        peers = lookup(egress, "to")
        if peers is UNKNOWN:
            yield from ctx.still_unknown(f"`spec.egress[{i}].to`")
            continue
        if peers is MISSING or peers == []:
            yield Finding(f"`spec.egress[{i}]` has no `to`: it allows every address, public ones included")
            continue
        for j, peer in enumerate(items(egress, "to")):
            cidr = lookup(peer, "ipBlock", "cidr") if peer is not UNKNOWN else UNKNOWN
            if cidr is UNKNOWN:
                yield from ctx.still_unknown(f"`spec.egress[{i}].to[{j}]`")
            elif isinstance(cidr, str) and public_block(cidr):
                yield Finding(f"`spec.egress[{i}].to[{j}].ipBlock.cidr` is {cidr!r}, which covers public addresses")


def _public_network_access(ctx: Context, resource_type: str, *path: str):
    """Findings for each `resource_type` that leaves public network access on, in a stack with private endpoints
    (a stack without them would have no other way in)."""
    if not ctx.of_type(PRIVATE_ENDPOINT):
        return
    for view in ctx.of_type(resource_type):
        access = lookup(view.props, *path)
        if access is UNKNOWN:
            yield from ctx.still_unknown(f"{view.name!r}: `{'.'.join(path)}`", view.urn)
            continue
        if known(access) and access == "Disabled":
            continue
        shown = "unset (Azure's default: Enabled)" if access is MISSING else describe(access)
        yield Finding(f"{view.name!r}: `{'.'.join(path)}` is {shown} while the stack reaches its services "
                      "through private endpoints", view.urn)


@rule(id="SAHAB-AZ-040", name="azure-storage-storageaccount-public-network-access-disabled",
      title="Storage accounts refuse public networks where private endpoints exist",
      description="In a stack with private endpoints, a storage account sets `publicNetworkAccess: Disabled`, so "
                  "its data is reachable only through a private endpoint (and by Azure's trusted services).",
      remediation="Set `public_network_access=\"Disabled\"` on the account and reach it through a private "
                  "endpoint with a `privatelink.blob.core.windows.net` DNS zone group.",
      severity=Severity.HIGH, frameworks=EXFILTRATION,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack")
def azure_storage_public_network(ctx: Context):
    yield from _public_network_access(ctx, STORAGE_ACCOUNT, "publicNetworkAccess")


@rule(id="SAHAB-AZ-041", name="azure-keyvault-vault-public-network-access-disabled",
      title="Key Vaults refuse public networks where private endpoints exist",
      description="In a stack with private endpoints, a Key Vault sets `properties.publicNetworkAccess: "
                  "Disabled`, so its keys are reachable only through a private endpoint (and by Azure's trusted "
                  "services: disk encryption sets, storage accounts).",
      remediation="Set `public_network_access=\"Disabled\"` in the vault's properties and reach it through a "
                  "private endpoint with a `privatelink.vaultcore.azure.net` DNS zone group.",
      severity=Severity.HIGH, frameworks=EXFILTRATION,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack",
      covers=(VAULT,))
def azure_vault_public_network(ctx: Context):
    yield from _public_network_access(ctx, VAULT, "properties", "publicNetworkAccess")


@rule(id="SAHAB-AZ-042", name="azure-containerregistry-registry-public-network-access-disabled",
      title="Container registries refuse public networks where private endpoints exist",
      description="In a stack with private endpoints, a container registry sets `publicNetworkAccess: Disabled`, "
                  "so its images (the workload's code) are pulled and pushed only through a private endpoint.",
      remediation="Set `public_network_access=\"Disabled\"` on the registry (Premium SKU) and reach it through a "
                  "private endpoint with a `privatelink.azurecr.io` DNS zone group.",
      severity=Severity.HIGH, frameworks=EXFILTRATION,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack",
      covers=(REGISTRY,))
def azure_registry_public_network(ctx: Context):
    yield from _public_network_access(ctx, REGISTRY, "publicNetworkAccess")

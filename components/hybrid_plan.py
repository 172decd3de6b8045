"""Hybrid links as plain data: tunnel addressing, the IPsec proposals both ends use, which DNS zones the sites
forward to which resolvers, and the files rendered for a site's DNS servers and its own router. No Pulumi here;
the components, the Ansible role's variables and the tests share these functions.

Crypto, one set for every tunnel, both ends: IKEv2 only; IKE AES-256-GCM-16 with PRF SHA2-384 and DH group 20
(ECP-384); ESP AES-256-GCM-16 with PFS group 20. AWS takes them as per-tunnel option lists (pulumi-aws
`ec2.VpnConnection` tunnel{1,2}_* arguments); Azure as a connection's custom IPsec policy (GCM for IPsec needs GCM
as integrity too: learn.microsoft.com/azure/virtual-wan/virtual-wan-ipsec, "Custom IPsec policies"); strongSwan as
the proposal strings below (docs.strongswan.org, "IKEv2 Cipher Suites").
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

IKE_PROPOSAL = "aes256gcm16-prfsha384-ecp384"
ESP_PROPOSAL = "aes256gcm16-ecp384"
AWS_TUNNEL_OPTIONS: dict[str, Any] = {
    "ike_versions": ["ikev2"],
    "phase1_encryption_algorithms": ["AES256-GCM-16"],
    "phase1_integrity_algorithms": ["SHA2-384"],
    "phase1_dh_group_numbers": [20],
    "phase2_encryption_algorithms": ["AES256-GCM-16"],
    "phase2_integrity_algorithms": ["SHA2-384"],
    "phase2_dh_group_numbers": [20],
    # The site initiates; after a dead peer, AWS starts the tunnel again itself.
    "startup_action": "add",
    "dpd_timeout_action": "restart",
}
AZURE_IPSEC_POLICY: dict[str, Any] = {
    "ike_encryption": "GCMAES256", "ike_integrity": "SHA384", "dh_group": "ECP384",
    "ipsec_encryption": "GCMAES256", "ipsec_integrity": "GCMAES256", "pfs_group": "ECP384",
    # Azure's defaults for a quick-mode SA: 27,000 s and 102,400,000 KB.
    "sa_life_time_seconds": 27_000, "sa_data_size_kilobytes": 102_400_000,
}
# AWS: each tunnel's inside /30 comes from 169.254.0.0/16, outside the blocks AWS reserves (169.254.0.0/30 to
# 169.254.5.0/30 and 169.254.169.252/30; pulumi-aws VpnConnection tunnel1_inside_cidr). Unique per gateway.
AWS_INSIDE_BASE = 100
# Azure: custom APIPA BGP addresses must lie in 169.254.21.0-169.254.22.255; the gateway takes .21.1, each site
# a .22.x address of its own.
AZURE_GATEWAY_BGP_ADDRESS = "169.254.21.1"
MAX_LINKED_SITES = 100


def aws_inside_cidrs(site_index: int) -> tuple[str, str]:
    """The two tunnels' inside /30s of a site's VPN connection (AWS takes .1, the site .2)."""
    if not 0 <= site_index < MAX_LINKED_SITES:
        raise ValueError(f"site index {site_index}: at most {MAX_LINKED_SITES} sites have links")
    third = AWS_INSIDE_BASE + site_index
    return f"169.254.{third}.0/30", f"169.254.{third}.4/30"


def azure_site_bgp_address(site_index: int) -> str:
    """The site's APIPA BGP address towards Azure's gateway."""
    if not 0 <= site_index < MAX_LINKED_SITES:
        raise ValueError(f"site index {site_index}: at most {MAX_LINKED_SITES} sites have links")
    return f"169.254.22.{site_index + 1}"


def inside_pair(cidr: str) -> tuple[str, str]:
    """(cloud side, site side) addresses of an AWS inside /30."""
    net = ipaddress.ip_network(cidr)
    return str(net[1]), f"{net[2]}/{net.prefixlen}"


# ---- DNS -------------------------------------------------------------------------------------------------------
def forward_zones(cloud: str, region: str) -> tuple[str, ...]:
    """The zones a site forwards to a cloud network's inbound resolver, so these names resolve to private
    addresses and nothing else changes:

    - AWS: `<region>.eks.amazonaws.com` (the private EKS API endpoints; EKS also publishes them in public DNS),
      `ecr.<region>.amazonaws.com` (ECR's API and registry through the VPC's interface endpoints), and ECR's
      layer bucket under `s3.<region>.amazonaws.com` (through the S3 interface endpoint, whose policy admits it).
      Not all of S3: that endpoint admits object access to the fleet's buckets only, while Pulumi manages buckets
      over S3's regional endpoint.
    - Azure: the public zones whose names CNAME into the privatelink zones (learn.microsoft.com/azure/private-link/
      private-endpoint-dns, "public DNS zone forwarders"): `<location>.azmk8s.io` (AKS), `azurecr.io` (ACR and its
      regional data endpoints), `blob.core.windows.net`, `vault.azure.net` and `vaultcore.azure.net`.
    """
    if cloud == "aws":
        return (f"{region}.eks.amazonaws.com", f"ecr.{region}.amazonaws.com",
                f"prod-{region}-starport-layer-bucket.s3.{region}.amazonaws.com")
    if cloud == "azure":
        return (f"{region}.azmk8s.io", "azurecr.io", "blob.core.windows.net", "vault.azure.net", "vaultcore.azure.net")
    raise ValueError(f"no zones for cloud {cloud!r}")


def zone_of(name: str, zones: Sequence[str]) -> str | None:
    """The longest forwarded zone `name` lies in, or None."""
    name = name.rstrip(".").lower()
    found = [z for z in zones if name == z or name.endswith("." + z)]
    return max(found, key=len) if found else None


def cloud_networks(fleet: Any) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(cloud, region, block, inbound resolver addresses) of every network the stack builds that a site links
    to, as components.fleet builds them: a VPC per Region with an EKS cluster the stack creates, a VNet per location
    with an AKS cluster it creates (or its Azure buckets); resolvers only where a site links to that cloud."""
    from sahab.components.kinds import get as kind_spec
    from sahab.components.network_plan import plan_resolver_address, plan_resolver_addresses

    linked = {link.cloud for site in fleet.sites for link in site.links}
    created = [c for c in fleet.clusters if not c.stack_reference]
    found = []
    aws, azure = fleet.clouds.aws, fleet.clouds.azure
    if aws is not None:
        for region in sorted({fleet.region_of(c) for c in created if kind_spec(c.kind).cloud == "aws"}):
            resolvers = plan_resolver_addresses(aws.vpc_cidr, aws.az_count) if "aws" in linked else ()
            found.append(("aws", region, aws.vpc_cidr, resolvers))
    if azure is not None:
        buckets = any(b.cloud == "azure" for b in fleet.storage.buckets)
        for location in sorted({fleet.region_of(c) for c in created if kind_spec(c.kind).cloud == "azure"} |
                               ({azure.location} if buckets else set())):
            resolvers = (plan_resolver_address(azure.vnet_cidr),) if "azure" in linked else ()
            found.append(("azure", location, azure.vnet_cidr, resolvers))
    return found


def site_forwarders(fleet: Any, site: Any) -> dict[str, list[str]]:
    """Zone -> resolver addresses for a site's DNS servers: each linked network's zones to its own resolver.
    Azure's global zones (azurecr.io, blob, Key Vault) go to the landing zone of clouds.azure.location (else the
    first): one VNet answers them."""
    clouds = {link.cloud for link in site.links}
    reachable = [n for n in cloud_networks(fleet) if n[0] in clouds and n[3]]
    home = fleet.clouds.azure.location if fleet.clouds.azure else None
    azure = [n for n in reachable if n[0] == "azure"]
    primary = next((n for n in azure if n[1] == home), azure[0] if azure else None)
    forwards: dict[str, list[str]] = {}
    for network in reachable:
        cloud, region, _, resolvers = network
        for zone in forward_zones(cloud, region):
            if cloud == "aws" or zone.endswith(".azmk8s.io") or network == primary:
                forwards[zone] = list(resolvers)
    return forwards


def render_forwarders(software: str, forwards: Mapping[str, Sequence[str]]) -> str:
    """Conditional forwarders for the site's DNS servers: each zone to the addresses that answer it. `forward
    first`: while a link is down (or before the first `pulumi up` creates the resolvers) the servers still
    resolve these names publicly (ECR's and the EKS endpoints' public answers stay in the Region); once the
    resolvers answer, the private addresses win."""
    zones = sorted(forwards)
    if software == "bind":
        lines = ["// Sahab: conditional forwarders to the clouds' inbound resolvers (include in named.conf)."]
        for zone in zones:
            targets = " ".join(f"{ip};" for ip in forwards[zone])
            lines.append(f'zone "{zone}" {{ type forward; forward first; forwarders {{ {targets} }}; }};')
        return "\n".join(lines) + "\n"
    if software == "unbound":
        lines = ["# Sahab: conditional forwarders to the clouds' inbound resolvers (include in unbound.conf)."]
        for zone in zones:
            lines += ["forward-zone:", f'    name: "{zone}."', "    forward-first: yes"]
            lines += [f"    forward-addr: {ip}" for ip in forwards[zone]]
        return "\n".join(lines) + "\n"
    if software == "windows":
        # Windows DNS Server recurses itself when a conditional forwarder does not answer (unless told not to).
        lines = ["# Sahab: conditional forwarders to the clouds' inbound resolvers (run on a Windows DNS Server)."]
        for zone in zones:
            lines.append(f"Add-DnsServerConditionalForwarderZone -Name '{zone}' -MasterServers "
                         f"{','.join(forwards[zone])} -ReplicationScope Forest")
        return "\n".join(lines) + "\n"
    raise ValueError(f"no forwarder format for {software!r}; known: bind, unbound, windows")


# ---- The site's end ------------------------------------------------------------------------------------------------
def gateway_tunnel(*, name: str, cloud: str, remote_address: str, local_id: str, psk: str, routing: str,
                   remote_networks: Sequence[str], remote_asn: int, inside_address: str,
                   remote_inside_address: str, if_id: int) -> dict[str, Any]:
    """One tunnel as the Ansible role sahab_site_gateway takes it (`sahab_site_gateway_tunnels[]`)."""
    return {"name": name, "cloud": cloud, "remote_address": remote_address, "local_id": local_id,
            "remote_id": remote_address, "psk": psk, "routing": routing, "remote_networks": list(remote_networks),
            "remote_asn": remote_asn, "inside_address": inside_address,
            "remote_inside_address": remote_inside_address, "if_id": if_id, "initiator": True}


def mirrored(tunnel: Mapping[str, Any], local_address: str, remote_networks: Sequence[str],
             remote_asn: int) -> dict[str, Any]:
    """The same tunnel seen from its other end, as the cloud's gateway holds it: identities and inside addresses
    swapped, the site's blocks and ASN as the remote ones, and the other end initiating. `local_address` is the
    cloud end's outside address (its identity)."""
    inside = ipaddress.ip_interface(tunnel["inside_address"])
    return {**tunnel, "remote_address": tunnel["local_id"], "remote_id": tunnel["local_id"],
            "local_id": local_address,
            "inside_address": f"{tunnel['remote_inside_address']}/{inside.network.prefixlen}",
            "remote_inside_address": str(inside.ip), "remote_networks": list(remote_networks),
            "remote_asn": remote_asn, "initiator": not tunnel.get("initiator", True)}


def render_router_config(site: str, public_ip: str, asn: int, networks: Sequence[str],
                         tunnels: Sequence[Mapping[str, Any]]) -> str:
    """Every parameter a site's own router needs for its end of the tunnels, vendor-neutral (one section per
    tunnel). It holds the pre-shared keys: Sahab exports it as a secret."""
    lines = [f"# Sahab: site {site}, the site's end of its IPsec tunnels to the clouds.",
             "# Holds pre-shared keys: keep this file secret. Configure one route-based tunnel per section.",
             "[site]", f"public_ip = {public_ip}", f"asn = {asn}", f"networks = {', '.join(networks)}",
             "ike = IKEv2 only; AES-256-GCM-16, PRF SHA2-384, DH group 20 (ECP-384)"
             f"  [strongSwan: {IKE_PROPOSAL}]",
             f"esp = AES-256-GCM-16, PFS DH group 20 (ECP-384)  [strongSwan: {ESP_PROPOSAL}]",
             "ike_identity = the site's public_ip (local), the tunnel's remote_address (remote)"]
    for t in tunnels:
        lines += ["", f"[tunnel {t['name']}]", f"cloud = {t['cloud']}", f"remote_address = {t['remote_address']}",
                  f"pre_shared_key = {t['psk']}", f"inside_address = {t['inside_address']}",
                  f"remote_inside_address = {t['remote_inside_address']}",
                  f"remote_networks = {', '.join(t['remote_networks'])}"]
        if t["routing"] == "bgp":
            lines.append(f"routing = bgp: peer {t['remote_inside_address']} AS {t['remote_asn']}; announce only "
                         f"{', '.join(networks)}; accept only prefixes inside remote_networks")
        else:
            lines.append(f"routing = static: route {', '.join(t['remote_networks'])} into this tunnel")
    return "\n".join(lines) + "\n"

"""Hybrid links in transit: a VPN tunnel between a site and a cloud network is a data path like any other, so what
crosses it is protected by modern IPsec only: IKEv2 (never IKEv1), AES-GCM for IKE and ESP, and Diffie-Hellman
groups of at least 2048-bit MODP or elliptic curves, on both AWS Site-to-Site VPN tunnels and Azure VPN gateway
connections. Left unset, both clouds accept their defaults, which include IKEv1 (AWS), AES-CBC with SHA-1 and DH
group 2: a missing setting fails.

Where the tunnels terminate is residency's question: the gateways (AWS virtual private and transit gateways, VPN
connections; Azure VPN and ExpressRoute gateways, connections) are judged by SAHAB-AWS-001 and SAHAB-AZ-001 like
every resource. A value still unknown after the update phase fails closed here too: a tunnel whose proposals cannot
be read is not known to be protected.
"""

from __future__ import annotations

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
    lookup,
    pdpl,
    rule,
)

VPN_CONNECTION = ("aws:ec2/vpnConnection:VpnConnection",)
GATEWAY_CONNECTION = ("azure-native:network:VirtualNetworkGatewayConnection",)
IN_TRANSIT = (pdpl("Art. 20 (security of processing)"), iso27001("A.8.20"), iso27001("A.8.24"))
TUNNELS = ("tunnel1", "tunnel2")
AWS_GCM = frozenset({"AES128-GCM-16", "AES256-GCM-16"})
# MODP 2048 and larger (14-18) and the NIST elliptic curves (19-21); not 2, 5 (too small) nor 22-24 (small subgroups).
AWS_DH_GROUPS = frozenset({14, 15, 16, 17, 18, 19, 20, 21})
AZURE_GCM_IKE = frozenset({"GCMAES128", "GCMAES256"})
AZURE_GCM_IPSEC = frozenset({"GCMAES128", "GCMAES192", "GCMAES256"})
AZURE_DH = frozenset({"DHGroup14", "DHGroup2048", "ECP256", "ECP384"})
AZURE_PFS = frozenset({"PFS14", "PFS2048", "ECP256", "ECP384"})


def _aws_list(view: ResourceView, prop: str) -> list | object:
    """A tunnel option list: the list, UNKNOWN, or MISSING (also for an empty list: AWS then allows its defaults)."""
    value = lookup(view.props, prop)
    if value is UNKNOWN or value is MISSING:
        return value
    found = items(view.props, prop)
    if not found:
        return MISSING
    return UNKNOWN if any(v is UNKNOWN for v in found) else found


@rule(id="SAHAB-NET-001", name="aws-ec2-vpnconnection-ikev2-only",
      title="Site-to-Site VPN tunnels negotiate IKEv2 only",
      description="Both tunnels of an AWS VPN connection permit only IKEv2 (`tunnel1_ike_versions`, "
                  "`tunnel2_ike_versions` = [\"ikev2\"]); unset, AWS also accepts IKEv1.",
      remediation="Set `tunnel1_ike_versions=[\"ikev2\"]` and `tunnel2_ike_versions=[\"ikev2\"]` on "
                  "`aws.ec2.VpnConnection` (Sahab's site links do).",
      severity=Severity.HIGH, frameworks=IN_TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS, types=VPN_CONNECTION)
def aws_vpn_ikev2(view: ResourceView, ctx: Context):
    for tunnel in TUNNELS:
        versions = _aws_list(view, f"{tunnel}IkeVersions")
        if not isinstance(versions, list) or set(versions) != {"ikev2"}:
            yield Finding(f"`{tunnel}IkeVersions` is {describe(versions)}; allowed: [\"ikev2\"]")


@rule(id="SAHAB-NET-002", name="aws-ec2-vpnconnection-aes-gcm-only",
      title="Site-to-Site VPN tunnels encrypt with AES-GCM only",
      description="Both tunnels of an AWS VPN connection permit only AES-GCM (AES128-GCM-16, AES256-GCM-16) in "
                  "phase 1 and phase 2; unset, AWS also accepts AES-CBC.",
      remediation="Set `tunnel{1,2}_phase{1,2}_encryption_algorithms=[\"AES256-GCM-16\"]` on `aws.ec2.VpnConnection`.",
      severity=Severity.HIGH, frameworks=IN_TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS, types=VPN_CONNECTION)
def aws_vpn_gcm(view: ResourceView, ctx: Context):
    for tunnel in TUNNELS:
        for phase in ("Phase1", "Phase2"):
            prop = f"{tunnel}{phase}EncryptionAlgorithms"
            algorithms = _aws_list(view, prop)
            if not isinstance(algorithms, list) or not set(algorithms) <= AWS_GCM:
                yield Finding(f"`{prop}` is {describe(algorithms)}; allowed: {', '.join(sorted(AWS_GCM))}")


@rule(id="SAHAB-NET-003", name="aws-ec2-vpnconnection-strong-dh-groups",
      title="Site-to-Site VPN tunnels use strong Diffie-Hellman groups",
      description="Both tunnels of an AWS VPN connection permit only DH groups 14-21 (MODP 2048 and up, ECP) in "
                  "phase 1 and phase 2; unset, AWS also accepts groups 2 and 5.",
      remediation="Set `tunnel{1,2}_phase{1,2}_dh_group_numbers=[20]` on `aws.ec2.VpnConnection`.",
      severity=Severity.MEDIUM, frameworks=IN_TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS, types=VPN_CONNECTION)
def aws_vpn_dh(view: ResourceView, ctx: Context):
    for tunnel in TUNNELS:
        for phase in ("Phase1", "Phase2"):
            prop = f"{tunnel}{phase}DhGroupNumbers"
            groups = _aws_list(view, prop)
            if not isinstance(groups, list) or not set(groups) <= AWS_DH_GROUPS:
                yield Finding(f"`{prop}` is {describe(groups)}; allowed: {sorted(AWS_DH_GROUPS)}")


def _ipsec_connection(view: ResourceView) -> bool:
    """An IPsec (site-to-site or VNet-to-VNet) connection; ExpressRoute carries no IPsec to judge."""
    kind = lookup(view.props, "connectionType")
    return kind not in ("ExpressRoute", "VPNClient")


def _policy(view: ResourceView, key: str) -> object:
    """One setting of the connection's custom IPsec/IKE policy (Azure takes one)."""
    policies = items(view.props, "ipsecPolicies")
    if not policies:
        return MISSING
    return UNKNOWN if policies[0] is UNKNOWN else lookup(policies[0], key)


@rule(id="SAHAB-NET-004", name="azure-network-virtualnetworkgatewayconnection-ikev2-only",
      title="Azure VPN connections negotiate IKEv2 only",
      description="An IPsec connection of an Azure VPN gateway uses `connectionProtocol` IKEv2 (Azure's default; "
                  "IKEv1 is refused).",
      remediation="Set `connection_protocol=\"IKEv2\"` on `azure_native.network.VirtualNetworkGatewayConnection`.",
      severity=Severity.HIGH, frameworks=IN_TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS, types=GATEWAY_CONNECTION)
def azure_connection_ikev2(view: ResourceView, ctx: Context):
    if not _ipsec_connection(view):
        return
    protocol = lookup(view.props, "connectionProtocol")
    if protocol is MISSING or protocol == "IKEv2":
        return  # Azure's default protocol for an IPsec connection is IKEv2
    yield Finding(f"`connectionProtocol` is {describe(protocol)}; allowed: IKEv2")


@rule(id="SAHAB-NET-005", name="azure-network-virtualnetworkgatewayconnection-aes-gcm-policy",
      title="Azure VPN connections encrypt with AES-GCM only",
      description="An IPsec connection of an Azure VPN gateway carries a custom IPsec/IKE policy whose IKE "
                  "encryption is GCMAES128/256 and whose IPsec encryption and integrity are GCM; without one, Azure "
                  "offers its default proposals (AES-CBC, SHA-1).",
      remediation="Set `ipsec_policies=[{ike_encryption: GCMAES256, ipsec_encryption: GCMAES256, ipsec_integrity: "
                  "GCMAES256, ...}]` on `azure_native.network.VirtualNetworkGatewayConnection`.",
      severity=Severity.HIGH, frameworks=IN_TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS, types=GATEWAY_CONNECTION)
def azure_connection_gcm(view: ResourceView, ctx: Context):
    if not _ipsec_connection(view):
        return
    for key, allowed in (("ikeEncryption", AZURE_GCM_IKE), ("ipsecEncryption", AZURE_GCM_IPSEC),
                         ("ipsecIntegrity", AZURE_GCM_IPSEC)):
        value = _policy(view, key)
        if value not in allowed:
            yield Finding(f"the IPsec policy's `{key}` is {describe(value)}; allowed: {', '.join(sorted(allowed))}")


@rule(id="SAHAB-NET-006", name="azure-network-virtualnetworkgatewayconnection-strong-dh-groups",
      title="Azure VPN connections use strong Diffie-Hellman groups",
      description="The custom IPsec/IKE policy of an Azure IPsec connection uses DH group 14 (2048) or ECP256/384 for "
                  "IKE and the same strength for PFS; without a policy Azure's defaults include DH group 2.",
      remediation="Set `dh_group=\"ECP384\"` and `pfs_group=\"ECP384\"` in the connection's `ipsec_policies`.",
      severity=Severity.MEDIUM, frameworks=IN_TRANSIT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS, types=GATEWAY_CONNECTION)
def azure_connection_dh(view: ResourceView, ctx: Context):
    if not _ipsec_connection(view):
        return
    for key, allowed in (("dhGroup", AZURE_DH), ("pfsGroup", AZURE_PFS)):
        value = _policy(view, key)
        if value not in allowed:
            yield Finding(f"the IPsec policy's `{key}` is {describe(value)}; allowed: {', '.join(sorted(allowed))}")

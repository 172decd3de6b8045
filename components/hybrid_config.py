"""The hybrid network schema: how each on-prem site reaches each cloud, and where `pulumi up` runs from.

    sites:
      - name: auh-dc1
        networks: [10.10.0.0/16]              # the site's blocks that reach the clouds
        dns: {software: bind}                 # conditional forwarders are rendered for these servers
        gateway:                              # the site's end of its VPN links
          public_ip: 198.51.100.10
          host: {name: auh-vpn1, address: 10.10.0.2}   # a Linux host Sahab converges (strongSwan, FRR)
        links:
          - {cloud: aws}                      # IPsec VPN with BGP, the default
          - {cloud: azure, routing: static}
          # - {cloud: aws, type: direct-connect, direct_connect_gateway_id: <existing DX gateway>}
          # - {cloud: azure, type: expressroute, expressroute_circuit_id: /subscriptions/.../expressRouteCircuits/x}
    deployer: {site: auh-dc1}                 # where `pulumi up` runs: a machine on this site's network

A link reaches every network the stack builds in that cloud (one VPC per AWS Region with clusters, one VNet per
Azure location). Sahab builds the cloud side (components.aws.site_link, components.azure.site_link), the site's
end on a Linux gateway host (the Ansible role sahab_site_gateway) or, for a site that terminates on its own
router, that router's configuration as a file, and the readiness verdict judges the whole graph
(sahab/readiness/reach.py). The cross-field rules of links, gateways and the deployer are the schema's
(components.fleet_config.rules.links), each refused at its config path.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator
from sahab.components import egress, validation

if TYPE_CHECKING:
    from sahab.components.fleet_config import FleetConfig

# The cloud ends' BGP ASNs: Sahab's virtual private / transit gateways (AWS's default Amazon-side ASN) and the
# ASNs Azure VPN gateways reserve (65515 is their default; learn.microsoft.com/azure/vpn-gateway/
# vpn-gateway-bgp-overview).
AWS_SIDE_ASN = 64512
AZURE_SIDE_ASN = 65515
AZURE_RESERVED_ASNS = frozenset({8074, 8075, 12076, 65515, 65516, 65517, 65518, 65519, 65520})
PRIVATE_ASNS = ((64512, 65534), (4_200_000_000, 4_294_967_294))
# AWS Direct Connect gateway ids are UUIDs; an ExpressRoute circuit is an ARM resource id.
DX_GATEWAY = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
ER_CIRCUIT = (r"^/subscriptions/[0-9a-fA-F-]{36}/resourceGroups/[A-Za-z0-9._()-]{1,90}/providers/"
              r"Microsoft\.Network/expressRouteCircuits/[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,38}[a-z0-9]$")]
SecretKey = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, use_attribute_docstrings=True)


def private_block(value: str) -> str:
    """A private IPv4 block with its host bits zero (10.10.0.0/16), as routes and security rules take it."""
    try:
        net = ipaddress.ip_network(value, strict=True)
    except ValueError:
        raise ValueError(f"{value!r} is not a CIDR block like 10.10.0.0/16 (host bits zero)") from None
    if net.version != 4:
        raise ValueError(f"{value!r}: allowed: an IPv4 block")
    problem = egress.public_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def public_address(value: str) -> str:
    """An IPv4 address the clouds' gateways can reach the site at: not private, loopback, link-local or multicast."""
    try:
        ip = ipaddress.ip_address(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an IPv4 address like 198.51.100.10") from None
    if ip.version != 4 or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_unspecified \
            or egress.is_private(f"{ip}/32") or ip == ipaddress.IPv4Address("255.255.255.255"):
        raise ValueError(f"{value!r} cannot be reached from a cloud; allowed: the public IPv4 address of the site's "
                         "VPN device (after NAT)")
    return value


class GatewayHost(_Model):
    """The Linux host that terminates the site's tunnels (Debian 12), reached over SSH like the site's servers."""

    name: Name
    """Inventory name. Required."""
    address: str
    """The address Ansible connects to. Required."""
    port: Annotated[StrictInt, Field(ge=1, le=65535)] = 22
    """SSH port. Default: 22."""

    @field_validator("address")
    @classmethod
    def _address(cls, v: str) -> str:
        problem = validation.host_address(v)
        if problem:
            raise ValueError(f"{validation.shown(v)}: allowed: {problem}")
        return v


class SiteGateway(_Model):
    """The site's end of its IPsec links."""

    public_ip: str
    """The site's public IPv4 address as the clouds see it (the AWS customer gateway, the Azure local network
    gateway; the IKE identity of the site's end). Required."""
    asn: Annotated[StrictInt, Field(ge=1, le=4_294_967_294)] = 65010
    """The site's BGP ASN, a private one that is neither AWS's side (64512) nor one Azure reserves. Default: 65010."""
    terminates_on: Literal["host", "router"] = "host"
    """`host`: a Linux gateway host Sahab converges (strongSwan with swanctl, FRR for BGP and routes; role
    sahab_site_gateway). `router`: the site's own router; Sahab renders its configuration as a file (stack output
    `hybrid.sites.<site>.routerConfig`). Default: host."""
    host: GatewayHost | None = None
    """With `terminates_on: host`: the gateway host. Required then."""
    ipsec_backend: Literal["kernel", "libipsec"] = "kernel"
    """`kernel`: the kernel's XFRM does ESP, one XFRM interface per tunnel (route-based, as AWS and Azure
    route-based gateways expect). `libipsec`: strongSwan's userspace ESP through a TUN device, for kernels without
    XFRM ESP or AES-GCM; traffic selectors are then the declared networks. Default: kernel."""

    _ip = field_validator("public_ip")(lambda v: public_address(v))

    @field_validator("asn")
    @classmethod
    def _asn(cls, v: int) -> int:
        if not any(low <= v <= high for low, high in PRIVATE_ASNS):
            raise ValueError(f"{v} is a public ASN; allowed: a private one, 64512-65534 or 4200000000-4294967294")
        if v == AWS_SIDE_ASN or v in AZURE_RESERVED_ASNS:
            raise ValueError(f"{v} is the clouds' own side of the BGP session (AWS {AWS_SIDE_ASN}, Azure "
                             f"{', '.join(map(str, sorted(AZURE_RESERVED_ASNS)))}); choose another private ASN")
        return v


class SiteLink(_Model):
    """How a site reaches one cloud."""

    cloud: Literal["aws", "azure"]
    """The cloud whose networks this link reaches (every VPC or VNet the stack builds there). Required."""
    type: Literal["vpn", "direct-connect", "expressroute"] = "vpn"
    """`vpn`: an IPsec VPN over the internet (IKEv2, AES-GCM), built by Sahab on both ends. `direct-connect` (aws):
    attach an existing Direct Connect gateway. `expressroute` (azure): connect an existing ExpressRoute circuit.
    Default: vpn."""
    routing: Literal["bgp", "static"] = "bgp"
    """`bgp`: the site and the cloud exchange their networks over BGP. `static`: fixed routes on both ends (for
    devices without BGP). Circuits always use BGP. Default: bgp."""
    direct_connect_gateway_id: Annotated[str, Field(pattern=DX_GATEWAY)] | None = None
    """With `direct-connect`: the existing Direct Connect gateway (its private virtual interface carries the
    site's routes). Default: unset."""
    expressroute_circuit_id: Annotated[str, Field(pattern=ER_CIRCUIT)] | None = None
    """With `expressroute`: the ARM id of the existing, provisioned circuit. Default: unset."""
    authorization_key_secret: SecretKey | None = None
    """With `expressroute`, a circuit of another subscription: the secret stack setting holding the circuit's
    authorization key. Default: unset (a circuit of this subscription)."""


class SiteDns(_Model):
    """The site's DNS servers, for which Sahab renders conditional forwarders to the clouds' inbound resolvers."""

    software: Literal["bind", "unbound", "windows"] = "bind"
    """What the site's DNS servers run: BIND (`named.conf` zones), Unbound (`forward-zone`) or Windows DNS
    Server (`Add-DnsServerConditionalForwarderZone`). Default: bind."""


class Deployer(_Model):
    """Where `pulumi up` runs: the machine (a laptop, a CI runner) whose network must reach every private API
    server and registry the run talks to."""

    site: Name | None = None
    """The site whose network it is on: it reaches each cloud over that site's link and resolves through the
    site's DNS servers. In a stack that takes its clusters from another stack, a site of that stack. Default: the
    first site with links."""
    cidrs: tuple[str, ...] = ()
    """The blocks it connects from. In a site: inside the site's networks (default: all of them). Outside every
    site: its public egress ranges; then it reaches only API servers with a public endpoint open to them."""

    @field_validator("cidrs")
    @classmethod
    def _cidrs(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for block in v:
            try:
                net = ipaddress.ip_network(block, strict=True)
            except ValueError:
                raise ValueError(f"{block!r} is not a CIDR block like 10.10.8.0/24 (host bits zero)") from None
            if net.version != 4:
                raise ValueError(f"{block!r}: allowed: an IPv4 block")
        return v


def deployer_of(fleet: FleetConfig) -> Deployer | None:
    """The declared deployer, else one on the first site with links (the documented default bring-up path), else
    None (no site reaches a cloud: the deployer is wherever `pulumi up` runs, judged as outside every site)."""
    if fleet.deployer is not None:
        return fleet.deployer
    site = next((s for s in fleet.sites if s.links), None)
    return Deployer(site=site.name) if site is not None else None

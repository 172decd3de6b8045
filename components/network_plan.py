"""Address plans for cloud networks: pure functions, no Pulumi.

AWS: a VPC is cut into four equal quarters. The first `az_count` quarters are the private node subnets (one
per availability zone, as large as possible: pods take VPC addresses under the VPC CNI). The last quarter is
cut again into four, and its first `az_count` pieces are the small public subnets that hold only the NAT
gateway and load balancers. With at most three zones the plan always fits and never overlaps.

Azure: a VNet is cut into four quarters. The first three are node subnets, one per AKS cluster in that
location (pods use an overlay network, so nodes only need node addresses). The last quarter is cut into four
again and its first piece holds the private endpoints of the storage accounts and the Key Vault; with hybrid
links the second holds the GatewaySubnet and the third the DNS Private Resolver's inbound subnet; the fourth
holds one /28 per AKS cluster for its API server (API Server VNet Integration, which AKS's KMS needs with a
private Key Vault).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

MAX_AZS = 3
MAX_AKS_CLUSTERS_PER_VNET = 3


@dataclass(frozen=True)
class SubnetPlan:
    private: tuple[str, ...]
    """One private (node) subnet per availability zone, in zone order."""
    public: tuple[str, ...]
    """One small public (NAT/load balancer) subnet per availability zone, in zone order."""


def _quarters(cidr: str) -> list[ipaddress.IPv4Network]:
    net = ipaddress.ip_network(cidr, strict=True)
    if net.version != 4:
        raise ValueError(f"{cidr!r}: only IPv4 ranges are planned")
    if net.prefixlen > 24:
        raise ValueError(f"{cidr!r}: a network smaller than /24 cannot hold the subnets; use /16 to /24")
    return list(net.subnets(prefixlen_diff=2))


def plan_vpc_subnets(vpc_cidr: str, az_count: int) -> SubnetPlan:
    """Private and public subnets for a VPC spread over `az_count` availability zones."""
    if not 1 <= az_count <= MAX_AZS:
        raise ValueError(f"az_count must be 1 to {MAX_AZS}, got {az_count}")
    quarters = _quarters(vpc_cidr)
    public_pool = list(quarters[-1].subnets(prefixlen_diff=2))
    return SubnetPlan(private=tuple(str(q) for q in quarters[:az_count]),
                      public=tuple(str(p) for p in public_pool[:az_count]))


def plan_vnet_subnets(vnet_cidr: str, clusters: list[str] | tuple[str, ...]) -> dict[str, str]:
    """One node subnet per AKS cluster sharing a VNet, in the order given."""
    if len(clusters) > MAX_AKS_CLUSTERS_PER_VNET:
        raise ValueError(f"at most {MAX_AKS_CLUSTERS_PER_VNET} AKS clusters share one VNet, got {len(clusters)}")
    if len(set(clusters)) != len(clusters):
        raise ValueError("cluster names must be unique")
    quarters = _quarters(vnet_cidr)
    return {name: str(quarters[i]) for i, name in enumerate(clusters)}


def plan_private_endpoint_subnet(vnet_cidr: str) -> str:
    """The subnet that holds a VNet's private endpoints: never one a node subnet uses."""
    return str(next(_quarters(vnet_cidr)[-1].subnets(prefixlen_diff=2)))


# AKS API Server VNet Integration: the API server's internal load balancer sits in a subnet of its own, delegated
# to AKS; /28 is the smallest such subnet.
API_SERVER_SUBNET_PREFIX = 28


def plan_api_server_subnets(vnet_cidr: str, clusters: list[str] | tuple[str, ...]) -> dict[str, str]:
    """One /28 per AKS cluster, from the start of the last quarter's fourth piece, in the order given."""
    piece = list(_quarters(vnet_cidr)[-1].subnets(prefixlen_diff=2))[3]
    room = list(piece.subnets(new_prefix=max(API_SERVER_SUBNET_PREFIX, piece.prefixlen)))
    if len(clusters) > len(room):
        raise ValueError(f"{vnet_cidr} holds API server subnets for {len(room)} AKS cluster(s), not {len(clusters)}; "
                         "use a larger vnet_cidr (a /23 holds three)")
    return {name: str(room[i]) for i, name in enumerate(clusters)}
# ---- Hybrid links: what the sites' traffic and DNS queries arrive at -------------------------------------------
# A Route 53 Resolver inbound endpoint takes one address in each of two subnets (two zones); fixed addresses let
# the sites' conditional forwarders be written before the endpoint exists. AWS keeps the first four addresses of
# every subnet; the eleventh is the first Sahab pins.
RESOLVER_HOST_OFFSET = 10
# Azure gateways need a subnet named GatewaySubnet (a /27 or larger is recommended); the DNS Private Resolver's
# inbound endpoint needs a subnet of its own, delegated to it, from /28 to /24. Azure keeps the first four addresses
# of every subnet, so the endpoint's fixed address is the fifth.
GATEWAY_SUBNET_PREFIX = 27
RESOLVER_SUBNET_PREFIX = 28


def plan_resolver_addresses(vpc_cidr: str, az_count: int) -> tuple[str, str]:
    """The inbound resolver endpoint's addresses: one in each of the first two private subnets."""
    private = plan_vpc_subnets(vpc_cidr, max(az_count, 2)).private
    return tuple(str(ipaddress.ip_network(s)[RESOLVER_HOST_OFFSET]) for s in private[:2])


def _spare_quarter_pieces(vnet_cidr: str) -> list[ipaddress.IPv4Network]:
    return list(_quarters(vnet_cidr)[-1].subnets(prefixlen_diff=2))


def plan_gateway_subnet(vnet_cidr: str) -> str:
    """GatewaySubnet: the start of the last quarter's second piece, a /27 where the piece holds one."""
    piece = _spare_quarter_pieces(vnet_cidr)[1]
    return str(next(piece.subnets(new_prefix=GATEWAY_SUBNET_PREFIX)) if piece.prefixlen < GATEWAY_SUBNET_PREFIX
               else piece)


def plan_resolver_subnet(vnet_cidr: str) -> str:
    """The DNS Private Resolver's inbound subnet: a /28 at the start of the last quarter's third piece."""
    piece = _spare_quarter_pieces(vnet_cidr)[2]
    return str(next(piece.subnets(new_prefix=RESOLVER_SUBNET_PREFIX)) if piece.prefixlen < RESOLVER_SUBNET_PREFIX
               else piece)


def plan_resolver_address(vnet_cidr: str) -> str:
    """The inbound endpoint's fixed address in its subnet (the first one Azure hands out)."""
    return str(ipaddress.ip_network(plan_resolver_subnet(vnet_cidr))[4])

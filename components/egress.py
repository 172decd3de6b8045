"""Where team pods may open connections outside the cluster: pure functions, no Pulumi.

A team pod reaches the cluster (its own namespace, DNS) and the fleet's own storage endpoints, never a public
address. The storage endpoints of a cloud cluster live in its network: the VPC's interface endpoints (S3, STS,
KMS...) on EKS, the private endpoints of the storage accounts and the Key Vault on AKS. So a cluster's allowed
destinations are its network's range, which the fleet schema already requires to be private, on 443. An on-prem
cluster reaches its site's object store (`sites[].object_store`: its private addresses, on its endpoint's port)
when the site has one; otherwise its pods keep checkpoints on volumes and get no address outside the cluster.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from sahab.components.validation import canonical_cidr

if TYPE_CHECKING:
    from sahab.components.fleet_config import Cluster, FleetConfig

# RFC 1918 private ranges and RFC 6598 shared (CGNAT) space: the ranges a VPC or VNet may use that are never
# routed on the internet. Everything else IPv4 is treated as public (link-local and loopback are refused too).
# The pack keeps its own copy (policies/rules/egress.py; it ships without components):
# tests/components/network/test_egress.py holds the two equal.
PRIVATE_RANGES = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")


def is_private(cidr: str) -> bool:
    """True when every address of `cidr` lies inside one private range."""
    net = ipaddress.ip_network(cidr, strict=False)
    return net.version == 4 and any(net.subnet_of(ipaddress.ip_network(r)) for r in PRIVATE_RANGES)


def public_problem(cidr: str) -> str | None:
    """None for a private block; otherwise what is wrong, for an error that names the setting."""
    problem = canonical_cidr(cidr)
    if problem:
        return f"{cidr!r} is not allowed; allowed: {problem}"
    if is_private(cidr):
        return None
    return f"{cidr!r} covers public addresses; allowed: blocks inside {', '.join(PRIVATE_RANGES)}"


def storage_destinations(config: FleetConfig, cluster: Cluster) -> tuple[tuple[str, ...], int]:
    """The address blocks a cluster's team pods may reach over HTTPS, and the port: a cloud cluster's own network
    (where the fleet's storage endpoints are) on 443; an on-prem cluster's site object store. No blocks for an
    on-prem site without a store and for clusters this stack does not create."""
    if cluster.stack_reference:
        return (), 443
    from sahab.components.kinds import get

    spec = get(cluster.kind)
    own = spec.network(config)
    if own:
        return (own,), 443
    if spec.cloud is None and cluster.site:
        store = config.site(cluster.site).object_store
        if store is not None:
            return store.addresses, store.port
    return (), 443

"""CIDR planning for VPCs and VNets, without Pulumi."""

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sahab.components.network_plan import plan_private_endpoint_subnet, plan_vnet_subnets, plan_vpc_subnets


def test_prod_vpc_plan_gives_three_large_private_and_three_small_public_subnets():
    plan = plan_vpc_subnets("10.40.0.0/16", 3)
    assert plan.private == ("10.40.0.0/18", "10.40.64.0/18", "10.40.128.0/18")
    assert plan.public == ("10.40.192.0/20", "10.40.208.0/20", "10.40.224.0/20")


vpc_blocks = st.builds(lambda a, b, prefix: str(ipaddress.ip_network(f"10.{a}.{b}.0/{prefix}", strict=False)),
                       st.integers(0, 255), st.integers(0, 255), st.integers(16, 24))


@given(vpc_blocks, st.integers(1, 3))
def test_subnets_lie_inside_the_vpc_and_never_overlap(cidr, az_count):
    plan = plan_vpc_subnets(cidr, az_count)
    vpc = ipaddress.ip_network(cidr)
    nets = [ipaddress.ip_network(s) for s in plan.private + plan.public]
    assert len(plan.private) == len(plan.public) == az_count
    assert all(n.subnet_of(vpc) for n in nets)
    assert not any(a.overlaps(b) for i, a in enumerate(nets) for b in nets[i + 1:])
    # Private node subnets hold pods (VPC CNI): each is larger than every public subnet.
    assert min(ipaddress.ip_network(p).num_addresses for p in plan.private) > \
        max(ipaddress.ip_network(p).num_addresses for p in plan.public)
    assert all(n.prefixlen <= 28 for n in nets)  # AWS's smallest subnet


@pytest.mark.parametrize("cidr, azs", [("10.0.0.0/25", 2), ("10.0.0.0/16", 4), ("10.0.0.0/16", 0),
                                        ("fd00::/56", 2)])
def test_impossible_vpc_plans_are_refused(cidr, azs):
    with pytest.raises(ValueError):
        plan_vpc_subnets(cidr, azs)


@given(vpc_blocks, st.lists(st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True), min_size=1, max_size=3,
                            unique=True))
def test_vnet_gives_each_cluster_its_own_subnet_and_private_endpoints_theirs(cidr, clusters):
    plan = plan_vnet_subnets(cidr, clusters)
    endpoints = ipaddress.ip_network(plan_private_endpoint_subnet(cidr))
    nets = [ipaddress.ip_network(plan[c]) for c in clusters] + [endpoints]
    assert list(plan) == clusters
    assert all(n.subnet_of(ipaddress.ip_network(cidr)) for n in nets)
    assert not any(a.overlaps(b) for i, a in enumerate(nets) for b in nets[i + 1:])
    assert endpoints.prefixlen <= 28  # room for a private endpoint per storage account and the Key Vault


def test_prod_vnet_keeps_its_node_subnet_and_puts_private_endpoints_in_the_last_quarter():
    assert plan_vnet_subnets("10.50.0.0/16", ["aks-main"]) == {"aks-main": "10.50.0.0/18"}
    assert plan_private_endpoint_subnet("10.50.0.0/16") == "10.50.192.0/20"


def test_too_many_clusters_for_one_vnet_are_refused():
    with pytest.raises(ValueError, match="at most 3"):
        plan_vnet_subnets("10.50.0.0/16", ["a", "b", "c", "d"])

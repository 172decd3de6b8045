"""The readiness verdict knows the hybrid graph: prod and burst plan ready, and taking away any one piece a
client needs (a link, a route, DNS forwarding, a security rule; for the deployer, a MultiKueue manager, a site, a
registry client or a checkpoint writer) makes `sahab plan` name what breaks; other
topologies (one site, three sites, existing circuits, overlapping blocks, a deployer off-site) are judged alike.

Stacks are planned once per session (tests.helpers); the small fleets run in-process under the same mocks.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from sahab.components.fleet import Fleet
from sahab.components.fleet_config import parse_fleet

from sahab.engine import PlannedResource
from sahab.readiness import judge
from tests.components.network.fleets import DX_GATEWAY, ER_CIRCUIT, fleet, site
from tests.helpers import planned_stack, record


@pytest.fixture(scope="module")
def prod() -> list[PlannedResource]:
    return planned_stack("prod").resources


@pytest.fixture(scope="module")
def burst() -> list[PlannedResource]:
    return planned_stack("burst").resources


def problems(resources: list[PlannedResource], referenced: list[PlannedResource] = ()) -> list[str]:
    return [f"{p.object}: {p.problem}" for p in judge(resources, referenced).problems]


def without(resources: list[PlannedResource], pick: Callable[[PlannedResource], bool]) -> list[PlannedResource]:
    kept = [r for r in resources if not pick(r)]
    assert len(kept) < len(resources), "nothing removed"
    return kept


def changed(resources: list[PlannedResource], pick: Callable[[PlannedResource], bool],
            change: Callable[[PlannedResource], None]) -> list[PlannedResource]:
    out, hit = [], False
    for res in resources:
        if pick(res):
            res, hit = copy.deepcopy(res), True
            change(res)
        out.append(res)
    assert hit, "nothing changed"
    return out


def named(type_: str, name: str) -> Callable[[PlannedResource], bool]:
    return lambda r: r.type == type_ and r.name == name


def built(config: dict) -> list[PlannedResource]:
    return record(lambda: Fleet(config["name"], parse_fleet(config))).resources


def test_prod_and_burst_plan_ready_with_their_links(prod, burst):
    assert problems(prod) == []
    assert problems(burst, prod) == []


REMOVALS = {
    # what is taken away: (how, the words the verdict must say)
    "auh-dc1's VPN to the VPC": (
        lambda rs: without(rs, named("aws:ec2/vpnConnection:VpnConnection", "sahab-auh-dc1-aws-me-central-1-vpn")),
        "no vpn link from site auh-dc1 to VPC sahab-me-central-1-vpc"),
    "dxb-dc1's VPN to the VNet": (
        lambda rs: without(rs, named("azure-native:network:VirtualNetworkGatewayConnection",
                                     "sahab-dxb-dc1-azure-uaenorth-connection")),
        "no vpn link from site dxb-dc1 to VNet sahab-uaenorth-vnet"),
    "the VPC's route propagation": (
        lambda rs: changed(rs, named("aws:ec2/routeTable:RouteTable", "sahab-me-central-1-private-rt"),
                           lambda r: (r.inputs.pop("propagatingVgws"), r.property_dependencies.pop("propagatingVgws"))),
        "route table sahab-me-central-1-private-rt has no route for 10.10.0.0/16"),
    "the Azure static route of dxb-dc1": (
        lambda rs: changed(rs, named("azure-native:network:LocalNetworkGateway",
                                     "sahab-dxb-dc1-azure-uaenorth-local-gateway"),
                           lambda r: r.inputs.update(localNetworkAddressSpace={"addressPrefixes": []})),
        "VNet sahab-uaenorth-vnet (10.50.0.0/16) has no route for 10.20.0.0/16"),
    "the VPC's inbound resolver": (
        lambda rs: without(rs, named("aws:route53/resolverEndpoint:ResolverEndpoint",
                                     "sahab-me-central-1-inbound-resolver")),
        "has no inbound resolver"),
    "auh-dc1's conditional forwarders": (
        lambda rs: changed(rs, named("sahab:network:Site", "sahab-auh-dc1-network"),
                           lambda r: r.inputs.update(forwarders={})),
        "forward no zone to the inbound resolver"),
    "the EKS API's HTTPS rule (MultiKueue, the deployer)": (
        lambda rs: changed(rs, named("aws:ec2/securityGroup:SecurityGroup", "sahab-me-central-1-api-access-sg"),
                           lambda r: r.inputs.update(ingress=[])),
        "cannot reach the API server of sahab-eks-main: security group sahab-me-central-1-api-access-sg admits "
        "nothing from 10.10.0.0/16 on tcp/443"),
    "the endpoints' HTTPS rule for the sites (registry pulls, checkpoints)": (
        lambda rs: changed(rs, named("aws:ec2/securityGroup:SecurityGroup", "sahab-me-central-1-endpoints-sg"),
                           lambda r: r.inputs.update(ingress=r.inputs["ingress"][:1])),
        "cannot reach ECR's registry endpoint"),
    "the NSG's HTTPS rule for the sites (ACR, storage)": (
        lambda rs: changed(rs, named("azure-native:network:NetworkSecurityGroup", "sahab-uaenorth-nsg"),
                           lambda r: r.inputs.update(securityRules=r.inputs["securityRules"][1:])),
        "cannot reach registry sahabprod.azurecr.io in VNet sahab-uaenorth-vnet (10.50.0.0/16): the network "
        "security group of VNet sahab-uaenorth-vnet (10.50.0.0/16) refuses 10.10.0.0/16 on tcp/443"),
    "the endpoints' rule for the VPC (EKS nodes' image pulls)": (
        lambda rs: changed(rs, named("aws:ec2/securityGroup:SecurityGroup", "sahab-me-central-1-endpoints-sg"),
                           lambda r: r.inputs.update(ingress=r.inputs["ingress"][1:])),
        "nodes of sahab-eks-main: cannot pull from registry 111122223333.dkr.ecr.me-central-1.amazonaws.com: ECR's "
        "interface endpoint answers its name in VPC sahab-me-central-1-vpc (10.40.0.0/16), but security group "
        "sahab-me-central-1-endpoints-sg admits nothing from 10.40.0.0/16 on tcp/443"),
    "the same rule for EKS checkpoint writers": (
        lambda rs: changed(rs, named("aws:ec2/securityGroup:SecurityGroup", "sahab-me-central-1-endpoints-sg"),
                           lambda r: r.inputs.update(ingress=r.inputs["ingress"][1:])),
        "checkpoint writers of sahab-eks-main (2 Jobs): S3's interface endpoint answers its name"),
    "the ACR's private endpoint in the VNet (AKS nodes' image pulls)": (
        lambda rs: without(rs, named("azure-native:network:PrivateEndpoint", "sahab-acr-uaenorth-endpoint")),
        "nodes of sahab-aks-main: cannot pull from registry sahabprod.azurecr.io: sahab-acr-acr (public network "
        "access off) has no private endpoint in VNet sahab-uaenorth-vnet"),
    "the blob zone's link to the VNet (AKS checkpoint writers)": (
        lambda rs: without(rs, named("azure-native:privatedns:VirtualNetworkLink", "sahab-uaenorth-dns-blob-link")),
        "checkpoint writers of sahab-aks-main (2 Jobs): no privatelink.blob.core.windows.net zone is linked to VNet"),
    "auh-dc1's gateway host converge": (
        lambda rs: without(rs, named("pulumi-python:dynamic:Resource", "sahab-auh-dc1-network-gateway")),
        "gateway host is not converged"),
}


@pytest.mark.parametrize("piece", list(REMOVALS))
def test_prod_is_not_ready_without_any_one_piece(prod, piece):
    take_away, says = REMOVALS[piece]
    found = problems(take_away(prod))
    assert any(says in p for p in found), found


def test_the_deployer_and_the_multikueue_manager_name_the_missing_link(prod, burst):
    cut = without(prod, named("azure-native:network:VirtualNetworkGatewayConnection",
                              "sahab-auh-dc1-azure-uaenorth-connection"))
    found = problems(burst, cut)
    assert any(p.startswith("MultiKueue manager auh-onprem: cannot reach the API server of sahab-aks-main: no link "
                            "from site auh-dc1 to VNet sahab-uaenorth-vnet") for p in found), found
    assert any(p.startswith("the deployer (site auh-dc1): cannot reach the API server of sahab-aks-main")
               for p in found), found
    # In prod the deployer's chart pulls from the ACR fail the same way.
    assert any(p.startswith("the deployer (site auh-dc1): cannot reach registry sahabprod.azurecr.io")
               for p in problems(cut)), problems(cut)


def test_one_site_over_a_transit_gateway_with_static_routes():
    config = fleet(site("auh", 10, links=[{"cloud": "aws", "routing": "static"}]),
                   clouds=("aws",))
    config["clouds"]["aws"]["hybrid_hub"] = "transit-gateway"
    resources = built(config)
    assert problems(resources) == []
    types = {r.type for r in resources}
    assert {"aws:ec2transitgateway/transitGateway:TransitGateway", "aws:ec2transitgateway/route:Route",
            "aws:ec2transitgateway/vpcAttachment:VpcAttachment"} <= types
    # Without the transit gateway's static route back to the site, the VPC's answers go nowhere.
    found = problems(without(resources, lambda r: r.type == "aws:ec2transitgateway/route:Route"))
    assert any("has no route for 10.10.0.0/16 over site auh's link" in p for p in found), found


def test_three_sites_to_both_clouds_mixing_bgp_static_and_a_router():
    config = fleet(site("auh", 10, links=[{"cloud": "aws"}, {"cloud": "azure"}]),
                   site("dxb", 20, links=[{"cloud": "azure", "routing": "static"}],
                        gateway={"public_ip": "198.51.100.20", "terminates_on": "router"}),
                   site("shj", 30, links=[{"cloud": "aws"}, {"cloud": "azure"}]),
                   clouds=("aws", "azure"))
    resources = built(config)
    assert problems(resources) == []
    connections = [r for r in resources if r.type == "azure-native:network:VirtualNetworkGatewayConnection"]
    assert sorted(r.inputs["tags"]["sahab.io/site"] for r in connections) == ["auh", "dxb", "shj"]
    # dxb reaches only Azure: a deployer there cannot reach the EKS API, nor the ECR its charts come from.
    moved = changed(resources, lambda r: r.type == "sahab:network:Deployer", lambda r: r.inputs.update(site="dxb"))
    found = problems(moved)
    assert any(p.startswith("the deployer (site dxb): cannot reach the API server of net-eks: no link from site "
                            "dxb to VPC") for p in found), found
    # Off every site, from a public range: private APIs are out of reach, and the verdict says what to do.
    outside = changed(resources, lambda r: r.type == "sahab:network:Deployer",
                      lambda r: r.inputs.update(site=None, cidrs=["203.0.113.0/24"]))
    found = problems(outside)
    assert any(p.startswith("the deployer (203.0.113.0/24): cannot reach the API server of net-eks: it is private")
               and "deployer.site" in p for p in found), found
    # A public endpoint open to that range is a way in (the bootstrap path issue 37 names).
    opened = changed(outside, lambda r: r.type == "aws:eks/cluster:Cluster",
                     lambda r: r.inputs["vpcConfig"].update(endpointPublicAccess=True,
                                                            publicAccessCidrs=["203.0.113.0/24"]))
    assert not [p for p in problems(opened) if "API server of net-eks" in p]


def test_existing_circuits_attach_and_are_judged_like_links():
    config = fleet(site("auh", 10, links=[{"cloud": "aws", "type": "direct-connect",
                                             "direct_connect_gateway_id": DX_GATEWAY},
                                            {"cloud": "azure", "type": "expressroute",
                                             "expressroute_circuit_id": ER_CIRCUIT}], gateway={}),
                   clouds=("aws", "azure"))
    config["sites"][0].pop("gateway")
    resources = built(config)
    assert problems(resources) == []
    association = next(r for r in resources if r.type == "aws:directconnect/gatewayAssociation:GatewayAssociation")
    assert association.inputs["dxGatewayId"] == DX_GATEWAY and association.inputs["allowedPrefixes"] == ["10.40.0.0/16"]
    er = next(r for r in resources if r.type == "azure-native:network:VirtualNetworkGatewayConnection")
    assert er.inputs["connectionType"] == "ExpressRoute" and er.inputs["peer"] == {"id": ER_CIRCUIT}
    assert not [r for r in resources if r.type in ("aws:ec2/vpnConnection:VpnConnection",
                                                   "azure-native:network:LocalNetworkGateway")]
    found = problems(without(resources, lambda r: r.type == "aws:directconnect/gatewayAssociation:GatewayAssociation"))
    assert any("no direct-connect link from site auh to VPC" in p for p in found), found


def test_overlapping_blocks_between_sites_and_clouds_are_named():
    # auh is 10.40.0.0/16, as the VPC is; dxb also claims half of auh's block.
    resources = built(fleet(site("auh", 40), site("dxb", 20, networks=["10.20.0.0/16", "10.40.128.0/17"]),
                            clouds=("aws",)))
    found = problems(resources)
    assert any("10.40.0.0/16 of site auh overlaps 10.40.0.0/16 of VPC" in p for p in found), found
    assert any("10.40.0.0/16 of site auh overlaps 10.40.128.0/17 of site dxb" in p for p in found), found

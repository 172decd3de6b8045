"""What prod's plan builds for its hybrid network: a link from each of its two sites to the VPC and to the VNet,
the sites' blocks routed and admitted on exactly the ports that cross, inbound resolvers and the forwarders for
the sites' DNS servers, the site ends (a converged gateway host, a router's file), secrets kept secret."""

from __future__ import annotations

import json

import pytest

from tests.helpers import planned_stack

SITES = {"auh-dc1": "10.10.0.0/16", "dxb-dc1": "10.20.0.0/16"}


@pytest.fixture(scope="module")
def prod():
    return planned_stack("prod")


def tagged(prod, type_: str, site: str):
    return [r for r in prod.of(type_) if (r.inputs.get("tags") or {}).get("sahab.io/site") == site]


def test_each_site_has_a_vpn_to_the_vpc_and_to_the_vnet(prod):
    vgw = prod.one("aws:ec2/vpnGateway:VpnGateway")
    gateway = prod.one("azure-native:network:VirtualNetworkGateway")
    for site in SITES:
        (vpn,) = tagged(prod, "aws:ec2/vpnConnection:VpnConnection", site)
        assert vpn.property_dependencies["vpnGatewayId"] == [vgw.urn]
        assert vpn.inputs["tunnel1IkeVersions"] == vpn.inputs["tunnel2IkeVersions"] == ["ikev2"]
        assert vpn.inputs["tunnel1Phase2EncryptionAlgorithms"] == ["AES256-GCM-16"]
        (connection,) = tagged(prod, "azure-native:network:VirtualNetworkGatewayConnection", site)
        assert connection.property_dependencies["virtualNetworkGateway1"] == [gateway.urn]
        assert connection.inputs["connectionProtocol"] == "IKEv2"
        assert connection.inputs["ipsecPolicies"][0]["ipsecEncryption"] == "GCMAES256"
    assert gateway.inputs["sku"]["name"] == "VpnGw1AZ" and gateway.inputs["enableBgp"] is True


def test_routes_reach_the_sites_without_overlap(prod):
    vgw = prod.one("aws:ec2/vpnGateway:VpnGateway")
    table = next(r for r in prod.of("aws:ec2/routeTable:RouteTable") if r.name.endswith("private-rt"))
    assert table.property_dependencies["propagatingVgws"] == [vgw.urn]
    # dxb-dc1 is static to Azure: its blocks are the local network gateway's address space; auh-dc1 uses BGP.
    local = {r.inputs["tags"]["sahab.io/site"]: r for r in prod.of("azure-native:network:LocalNetworkGateway")}
    assert local["dxb-dc1"].inputs["localNetworkAddressSpace"]["addressPrefixes"] == ["10.20.0.0/16"]
    assert local["auh-dc1"].inputs["bgpSettings"] == {"asn": 65010, "bgpPeeringAddress": "169.254.22.1"}
    vpc = prod.one("aws:ec2/vpc:Vpc").inputs["cidrBlock"]
    vnet = prod.one("azure-native:network:VirtualNetwork").inputs["addressSpace"]["addressPrefixes"]
    import ipaddress

    blocks = [ipaddress.ip_network(b) for b in [vpc, *vnet, *SITES.values()]]
    assert not any(a.overlaps(b) for i, a in enumerate(blocks) for b in blocks[i + 1:])


def test_exactly_the_sites_are_admitted_on_the_ports_that_cross(prod):
    groups = {r.name: r for r in prod.of("aws:ec2/securityGroup:SecurityGroup")}
    api = groups["sahab-me-central-1-api-access-sg"]
    assert {(i["fromPort"], i["protocol"], *i["cidrBlocks"]) for i in api.inputs["ingress"]} == {
        (443, "tcp", cidr) for cidr in SITES.values()}
    eks = prod.one("aws:eks/cluster:Cluster")
    assert api.urn in eks.property_dependencies["vpcConfig"]
    endpoints = groups["sahab-me-central-1-endpoints-sg"]
    assert {c for i in endpoints.inputs["ingress"] for c in i["cidrBlocks"]} == {"10.40.0.0/16", *SITES.values()}
    resolver = groups["sahab-me-central-1-resolver-sg"]
    assert {(i["protocol"], i["fromPort"], *i["cidrBlocks"]) for i in resolver.inputs["ingress"]} == {
        (proto, 53, cidr) for proto in ("tcp", "udp") for cidr in SITES.values()}
    nsg = prod.one("azure-native:network:NetworkSecurityGroup")
    allow, deny = nsg.inputs["securityRules"]
    assert (allow["access"], allow["destinationPortRange"], sorted(allow["sourceAddressPrefixes"])) == \
        ("Allow", "443", sorted(SITES.values()))
    assert (deny["access"], deny["priority"] > allow["priority"]) == ("Deny", True)


def test_resolvers_and_the_sites_forwarders(prod):
    resolver = prod.one("aws:route53/resolverEndpoint:ResolverEndpoint")
    assert resolver.inputs["direction"] == "INBOUND"
    assert [a["ip"] for a in resolver.inputs["ipAddresses"]] == ["10.40.0.10", "10.40.64.10"]
    inbound = prod.one("azure-native:dnsresolver:InboundEndpoint")
    assert inbound.inputs["ipConfigurations"][0]["privateIpAddress"] == "10.50.224.4"
    hybrid = prod.outputs["hybrid"]
    auh = hybrid["sites"]["auh-dc1"]
    assert auh["forwarders"]["me-central-1.eks.amazonaws.com"] == ["10.40.0.10", "10.40.64.10"]
    assert auh["forwarders"]["azurecr.io"] == ["10.50.224.4"]
    assert 'zone "azurecr.io" { type forward; forward first; forwarders { 10.50.224.4; }; };' in auh["forwarderConfig"]
    assert "Add-DnsServerConditionalForwarderZone" in hybrid["sites"]["dxb-dc1"]["forwarderConfig"]
    assert hybrid["deployer"] == {"site": "auh-dc1", "cidrs": []}


def test_site_ends_and_secrets(prod):
    converge = next(r for r in prod.of("pulumi-python:dynamic:Resource") if r.name == "sahab-auh-dc1-network-gateway")
    hosts = converge.inputs["hosts"]
    assert [(h["name"], h["group"]) for h in hosts] == [("auh-vpn1", "site_gateways")]
    assert converge.inputs["secret_variables"] == "[secret]"  # the tunnels, their keys among them
    # dxb-dc1 terminates on its own router: no converge, its settings are a secret output.
    assert not [r for r in prod.of("pulumi-python:dynamic:Resource") if r.name.startswith("sahab-dxb-dc1-network")]
    hybrid = prod.outputs["hybrid"]
    assert hybrid["sites"]["dxb-dc1"]["routerConfig"] == hybrid["sites"]["auh-dc1"]["tunnels"] == "[secret]"
    planned = json.dumps([r.inputs for r in prod.resources])
    for vpn in prod.of("aws:ec2/vpnConnection:VpnConnection"):
        assert vpn.inputs["tunnel1PresharedKey"] == vpn.inputs["tunnel2PresharedKey"] == "[secret]"
    assert "pre_shared_key" not in planned and '"psk"' not in planned

"""The hybrid links judged in transit and in place: Sahab's own site links pass the VPN rules as built, and a
tunnel that would terminate outside the allowed regions is refused by the residency rules like any resource."""

from __future__ import annotations

import pulumi
import pytest
from sahab.components.aws.site_link import AwsSiteLink, AwsSiteLinkArgs
from sahab.components.azure.site_link import AzureSiteLink, AzureSiteLinkArgs
from sahab.policies.rules.hybrid_links import GATEWAY_CONNECTION, VPN_CONNECTION

from tests.helpers import record
from tests.policies.policy_harness import Res, Stack, run

NET_RULES = ("aws-ec2-vpnconnection-ikev2-only", "aws-ec2-vpnconnection-aes-gcm-only",
             "aws-ec2-vpnconnection-strong-dh-groups", "azure-network-virtualnetworkgatewayconnection-ikev2-only",
             "azure-network-virtualnetworkgatewayconnection-aes-gcm-policy",
             "azure-network-virtualnetworkgatewayconnection-strong-dh-groups")


@pytest.fixture(scope="module")
def links():
    def build():
        for routing in ("bgp", "static"):
            AwsSiteLink(f"aws-{routing}", AwsSiteLinkArgs(
                site="auh", site_index=0, networks=("10.10.0.0/16",), vpc_cidr="10.40.0.0/16", region="me-central-1",
                routing=routing, public_ip="198.51.100.10", hub_id="vgw-0123456789abcdef0"))
            AzureSiteLink(f"azure-{routing}", AzureSiteLinkArgs(
                site="auh", site_index=0, networks=("10.10.0.0/16",), vnet_cidr="10.50.0.0/16", location="uaenorth",
                resource_group_name="rg", routing=routing, public_ip="198.51.100.10", gateway_id="/gw",
                gateway_address="20.0.0.1", ip_configuration_id="/gw/ipConfigurations/default"))
        pulumi.export("done", True)
    return record(build).resources


def test_sahabs_own_tunnels_pass_every_in_transit_rule(links):
    connections = [r for r in links if r.type in VPN_CONNECTION + GATEWAY_CONNECTION]
    assert len(connections) == 4
    for res in connections:
        views = Res(res.type, res.inputs, name=res.name, provider={"region": "me-central-1"}
                    if res.type in VPN_CONNECTION else {}, provider_type="pulumi:providers:aws"
                    if res.type in VPN_CONNECTION else "pulumi:providers:azure-native")
        for rule in NET_RULES:
            assert run(rule, views) == [], (rule, res.name)


def test_pre_shared_keys_are_secrets_in_the_plan(links):
    vpn = next(r for r in links if r.type in VPN_CONNECTION)
    assert vpn.inputs["tunnel1PresharedKey"] == vpn.inputs["tunnel2PresharedKey"] == "[secret]"
    connection = next(r for r in links if r.type in GATEWAY_CONNECTION)
    assert connection.inputs["sharedKey"] == "[secret]"


@pytest.mark.parametrize(("gateway", "rule"), [
    (Res("aws:ec2/vpnGateway:VpnGateway", {"vpcId": "vpc-1"}, provider={"region": "eu-west-1"}),
     "aws-all-resource-region-allowed"),
    (Res("aws:ec2/vpnConnection:VpnConnection", {"customerGatewayId": "cgw-1"}, provider={"region": "eu-west-1"}),
     "aws-all-resource-region-allowed"),
    (Res("azure-native:network:VirtualNetworkGateway", {"location": "westeurope", "gatewayType": "Vpn"},
         provider={}, provider_type="pulumi:providers:azure-native"), "azure-all-resource-location-allowed"),
])
def test_a_tunnel_cannot_terminate_outside_the_allowed_regions(gateway, rule):
    found = run(rule, Stack([gateway]))
    assert found and ("eu-west-1" in found[0][0] or "westeurope" in found[0][0])

"""What a fleet VPC needs to meet the on-prem sites: the gateway their links attach to, the inbound resolver
their DNS servers forward to, and the security group that lets them reach the Kubernetes API.

Plain functions that make children of the caller's component (components.aws.network). The gateway is either a
virtual private gateway attached to the VPC, whose routes (BGP-learnt and the connections' static ones) the
private route table takes by propagation, or a transit gateway attached to the private subnets, to which the
route table sends the sites' blocks. Each site's connection is a components.aws.site_link.AwsSiteLink.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws
from sahab.components.hybrid_config import AWS_SIDE_ASN

VIRTUAL_PRIVATE_GATEWAY = "virtual-private-gateway"
TRANSIT_GATEWAY = "transit-gateway"
KUBERNETES_API_PORT = 443
DNS_PORT = 53


@dataclass
class Hub:
    """The gateway the sites' links attach to: exactly one of the two is set."""

    kind: str
    vpn_gateway: aws.ec2.VpnGateway | None = None
    transit_gateway: aws.ec2transitgateway.TransitGateway | None = None
    attachment: aws.ec2transitgateway.VpcAttachment | None = None

    @property
    def id(self) -> pulumi.Output[str]:
        return (self.vpn_gateway or self.transit_gateway).id


def gateway(name: str, kind: str, vpc_id: pulumi.Input[str], subnet_ids: list[pulumi.Input[str]],
            tags: dict[str, str], opts: pulumi.ResourceOptions) -> Hub:
    """The VPC's virtual private gateway (attached through its `vpc_id`) or a transit gateway with the VPC
    attached in its private subnets; AWS's side of every BGP session uses ASN 64512."""
    if kind == VIRTUAL_PRIVATE_GATEWAY:
        vgw = aws.ec2.VpnGateway(f"{name}-vgw", vpc_id=vpc_id, amazon_side_asn=str(AWS_SIDE_ASN),
                                 tags={**tags, "Name": f"{name}-vgw"}, opts=opts)
        return Hub(kind, vpn_gateway=vgw)
    if kind != TRANSIT_GATEWAY:
        raise ValueError(f"unknown hybrid hub {kind!r}; known: {VIRTUAL_PRIVATE_GATEWAY}, {TRANSIT_GATEWAY}")
    tgw = aws.ec2transitgateway.TransitGateway(
        f"{name}-tgw", amazon_side_asn=AWS_SIDE_ASN, description=f"{name}: the on-prem sites' links",
        default_route_table_association="enable", default_route_table_propagation="enable",
        dns_support="enable", vpn_ecmp_support="enable", auto_accept_shared_attachments="disable",
        tags={**tags, "Name": f"{name}-tgw"}, opts=opts)
    attachment = aws.ec2transitgateway.VpcAttachment(
        f"{name}-tgw-attachment", transit_gateway_id=tgw.id, vpc_id=vpc_id, subnet_ids=subnet_ids,
        dns_support="enable", tags={**tags, "Name": f"{name}-tgw-attachment"}, opts=opts)
    return Hub(kind, transit_gateway=tgw, attachment=attachment)


def site_ingress(port: int, protocol: str, site_cidrs: tuple[str, ...], what: str) -> list[Any]:
    """Ingress rules that admit exactly the sites' blocks on one port."""
    return [aws.ec2.SecurityGroupIngressArgs(protocol=protocol, from_port=port, to_port=port, cidr_blocks=[cidr],
                                             description=f"{what} from an on-prem site") for cidr in site_cidrs]


def api_access_group(name: str, vpc_id: pulumi.Input[str], site_cidrs: tuple[str, ...], tags: dict[str, str],
                     opts: pulumi.ResourceOptions) -> aws.ec2.SecurityGroup:
    """A security group the EKS clusters attach to their control-plane interfaces (`vpcConfig.securityGroupIds`):
    HTTPS from the linked sites, which AWS requires for a private endpoint reached from a connected network
    (docs.aws.amazon.com/eks/latest/userguide/cluster-endpoint.html, "Accessing a private only API server")."""
    return aws.ec2.SecurityGroup(
        f"{name}-api-access-sg", vpc_id=vpc_id, description="HTTPS to the Kubernetes API from the on-prem sites",
        ingress=site_ingress(KUBERNETES_API_PORT, "tcp", site_cidrs, "Kubernetes API"), egress=[], tags=tags,
        opts=opts)


def inbound_resolver(name: str, vpc_id: pulumi.Input[str], subnet_ids: list[pulumi.Input[str]],
                     addresses: tuple[str, str], site_cidrs: tuple[str, ...], tags: dict[str, str],
                     opts: pulumi.ResourceOptions) -> aws.route53.ResolverEndpoint:
    """A Route 53 Resolver inbound endpoint at fixed addresses in two zones: the sites' DNS servers forward the
    private zones (components.hybrid_plan.forward_zones) here and get the answers the VPC itself gets."""
    group = aws.ec2.SecurityGroup(
        f"{name}-resolver-sg", vpc_id=vpc_id, description="DNS from the on-prem sites to the inbound resolver",
        ingress=[*site_ingress(DNS_PORT, "udp", site_cidrs, "DNS"), *site_ingress(DNS_PORT, "tcp", site_cidrs, "DNS")],
        egress=[], tags=tags, opts=opts)
    return aws.route53.ResolverEndpoint(
        f"{name}-inbound-resolver", name=f"{name}-inbound", direction="INBOUND", resolver_endpoint_type="IPV4",
        protocols=["Do53"], security_group_ids=[group.id],
        ip_addresses=[aws.route53.ResolverEndpointIpAddressArgs(subnet_id=subnet, ip=address)
                      for subnet, address in zip(subnet_ids, addresses, strict=True)],
        tags=tags, opts=opts)

"""AwsSiteLink: one on-prem site's link to one fleet VPC, attached to the VPC's hub (components.aws.hybrid_hub).

- VPN: a customer gateway at the site's public address and a Site-to-Site VPN connection of two tunnels, each
  with its own inside /30 and pre-shared key (Pulumi secrets), IKEv2 and AES-GCM only
  (components.hybrid_plan.AWS_TUNNEL_OPTIONS). With BGP the site announces its blocks; with static routing each
  block is a route of the connection (a virtual private gateway propagates them into the VPC's route table) or
  of the transit gateway's route table.
- Direct Connect: the existing Direct Connect gateway associated with the hub, allowed to carry the VPC's block.

`tunnels` (a secret Output) is what the site's end needs: each tunnel's outside address, inside addresses, key
and the cloud's ASN, in the shape the Ansible role sahab_site_gateway takes.
"""

from __future__ import annotations

from typing import Any, Literal

import pulumi
import pulumi_aws as aws
import pulumi_random as random
from pydantic import Field
from sahab.components.hybrid_config import AWS_SIDE_ASN
from sahab.components.hybrid_plan import AWS_TUNNEL_OPTIONS, aws_inside_cidrs, gateway_tunnel, inside_pair
from sahab.components.kubernetes.common import Args

PSK_LENGTH = 40


class AwsSiteLinkArgs(Args):
    site: str
    """The site's name. Required."""
    site_index: int
    """The site's position among the fleet's sites: picks its tunnels' inside /30s. Required."""
    networks: tuple[str, ...]
    """The site's blocks. Required."""
    vpc_cidr: str
    """The VPC's block, what the site reaches. Required."""
    region: str
    """The VPC's Region (names the tunnels). Required."""
    type: Literal["vpn", "direct-connect"] = "vpn"
    """An IPsec VPN, or an existing Direct Connect gateway. Default: vpn."""
    routing: Literal["bgp", "static"] = "bgp"
    """How the blocks are exchanged. Default: bgp."""
    public_ip: str | None = None
    """VPN: the site's public address. Required for a VPN."""
    asn: int = 65010
    """The site's BGP ASN (also what the customer gateway declares with static routing). Default: 65010."""
    hub_id: Any
    """The virtual private or transit gateway (Input[str]). Required."""
    transit_route_table_id: Any = None
    """With a transit gateway: its default route table (Input[str]), for static routes. Default: none."""
    direct_connect_gateway_id: str | None = None
    """Direct Connect: the existing gateway's id. Default: none."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource. Default: none."""


class AwsSiteLink(pulumi.ComponentResource):
    tunnels: pulumi.Output[list]

    def __init__(self, name: str, args: AwsSiteLinkArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:aws:SiteLink", name, {"site": args.site, "type": args.type,
                                                      "routing": args.routing, "networks": list(args.networks),
                                                      "remoteNetworks": [args.vpc_cidr]}, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = {**args.tags, "sahab.io/site": args.site}
        transit = args.transit_route_table_id is not None
        self.tunnels = pulumi.Output.secret([])
        if args.type == "direct-connect":
            aws.directconnect.GatewayAssociation(
                f"{name}-dx-association", dx_gateway_id=args.direct_connect_gateway_id,
                associated_gateway_id=args.hub_id, allowed_prefixes=[args.vpc_cidr], opts=child)
            self.register_outputs({})
            return

        customer = aws.ec2.CustomerGateway(
            f"{name}-cgw", ip_address=args.public_ip, bgp_asn=str(args.asn), type="ipsec.1",
            device_name=f"sahab-{args.site}", tags={**tags, "Name": f"{name}-cgw"}, opts=child)
        inside = aws_inside_cidrs(args.site_index)
        keys = [self._key(f"{name}-tunnel{i}-psk") for i in (1, 2)]
        options: dict[str, Any] = {}
        for i, cidr, key in zip((1, 2), inside, keys, strict=True):
            options |= {f"tunnel{i}_{option}": value for option, value in AWS_TUNNEL_OPTIONS.items()}
            options |= {f"tunnel{i}_inside_cidr": cidr, f"tunnel{i}_preshared_key": key}
        connection = aws.ec2.VpnConnection(
            f"{name}-vpn", customer_gateway_id=customer.id, type="ipsec.1",
            static_routes_only=args.routing == "static",
            **({"transit_gateway_id": args.hub_id} if transit else {"vpn_gateway_id": args.hub_id}),
            tags={**tags, "Name": f"{name}-vpn"}, opts=child, **options)
        if args.routing == "static":
            for j, block in enumerate(args.networks):
                if transit:
                    aws.ec2transitgateway.Route(
                        f"{name}-route-{j}", destination_cidr_block=block,
                        transit_gateway_attachment_id=connection.transit_gateway_attachment_id,
                        transit_gateway_route_table_id=args.transit_route_table_id, opts=child)
                else:
                    aws.ec2.VpnConnectionRoute(f"{name}-route-{j}", vpn_connection_id=connection.id,
                                               destination_cidr_block=block, opts=child)

        def site_end(values: list[Any]) -> list[dict[str, Any]]:
            addresses, psks = values[:2], values[2:]
            tunnels = []
            for i, (address, psk, cidr) in enumerate(zip(addresses, psks, inside, strict=True), start=1):
                cloud_inside, site_inside = inside_pair(cidr)
                tunnels.append(gateway_tunnel(
                    name=f"aws-{args.region}-{i}", cloud="aws", remote_address=address, local_id=args.public_ip,
                    psk=psk, routing=args.routing, remote_networks=[args.vpc_cidr], remote_asn=AWS_SIDE_ASN,
                    inside_address=site_inside, remote_inside_address=cloud_inside, if_id=0))
            return tunnels

        self.tunnels = pulumi.Output.secret(pulumi.Output.all(
            connection.tunnel1_address, connection.tunnel2_address, *keys).apply(site_end))
        self.register_outputs({"tunnels": self.tunnels})

    def _key(self, name: str) -> pulumi.Output[str]:
        """A pre-shared key AWS accepts: 8-64 letters and digits, not starting with 0 (a letter goes first)."""
        password = random.RandomPassword(name, length=PSK_LENGTH - 1, special=False,
                                         opts=pulumi.ResourceOptions(parent=self))
        return pulumi.Output.secret(pulumi.Output.concat("k", password.result))

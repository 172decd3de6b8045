"""AzureSiteLink: one on-prem site's link to one landing zone's VNet (components.azure.hybrid_gateway).

- VPN: a local network gateway at the site's public address and an IPsec connection from the VNet's VPN
  gateway: IKEv2, the custom IPsec/IKE policy of components.hybrid_plan (AES-256-GCM, ECP-384), a pre-shared key
  that is a Pulumi secret. With BGP the site peers from its APIPA address with the gateway's; with static routing
  the local network gateway carries the site's blocks.
- ExpressRoute: a connection from the VNet's ExpressRoute gateway to the existing circuit (with its
  authorization key, a secret, when the circuit is another subscription's).

`tunnels` (a secret Output) is the site's end, in the shape the Ansible role sahab_site_gateway takes.
"""

from __future__ import annotations

from typing import Any, Literal

import pulumi
import pulumi_azure_native as azure_native
import pulumi_random as random
from pydantic import Field
from sahab.components.hybrid_config import AZURE_SIDE_ASN
from sahab.components.hybrid_plan import (
    AZURE_GATEWAY_BGP_ADDRESS,
    AZURE_IPSEC_POLICY,
    azure_site_bgp_address,
    gateway_tunnel,
)
from sahab.components.kubernetes.common import Args

PSK_LENGTH = 40
DPD_TIMEOUT_SECONDS = 45


class AzureSiteLinkArgs(Args):
    site: str
    """The site's name. Required."""
    site_index: int
    """The site's position among the fleet's sites: picks its APIPA BGP address. Required."""
    networks: tuple[str, ...]
    """The site's blocks. Required."""
    vnet_cidr: str
    """The VNet's block, what the site reaches. Required."""
    location: str
    """The landing zone's location. Required."""
    resource_group_name: Any
    """The landing zone's resource group (Input[str]). Required."""
    type: Literal["vpn", "expressroute"] = "vpn"
    """An IPsec VPN, or an existing ExpressRoute circuit. Default: vpn."""
    routing: Literal["bgp", "static"] = "bgp"
    """How the blocks are exchanged. Default: bgp."""
    public_ip: str | None = None
    """VPN: the site's public address. Required for a VPN."""
    asn: int = 65010
    """The site's BGP ASN. Default: 65010."""
    gateway_id: Any
    """The VNet's VPN (or ExpressRoute) gateway (Input[str]). Required."""
    gateway_address: Any = None
    """VPN: the gateway's public address (Input[str]), the site's remote end. Default: none."""
    ip_configuration_id: Any = None
    """VPN: the gateway's ip configuration (Input[str]), whose custom APIPA address the session uses."""
    circuit_id: str | None = None
    """ExpressRoute: the circuit's ARM id. Default: none."""
    authorization_key: Any = None
    """ExpressRoute: the circuit's authorization key (a secret Input[str]). Default: none."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource. Default: none."""


class AzureSiteLink(pulumi.ComponentResource):
    tunnels: pulumi.Output[list]

    def __init__(self, name: str, args: AzureSiteLinkArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:azure:SiteLink", name, {"site": args.site, "type": args.type,
                                                        "routing": args.routing, "networks": list(args.networks),
                                                        "remoteNetworks": [args.vnet_cidr]}, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = {**args.tags, "sahab.io/site": args.site}
        common = {"resource_group_name": args.resource_group_name, "location": args.location, "tags": tags}
        self.tunnels = pulumi.Output.secret([])
        if args.type == "expressroute":
            azure_native.network.VirtualNetworkGatewayConnection(
                f"{name}-connection", connection_type="ExpressRoute",
                virtual_network_gateway1=azure_native.network.VirtualNetworkGatewayArgs(id=args.gateway_id),
                peer=azure_native.network.SubResourceArgs(id=args.circuit_id),
                authorization_key=args.authorization_key, **common, opts=child)
            self.register_outputs({})
            return

        bgp = args.routing == "bgp"
        site_bgp = azure_site_bgp_address(args.site_index)
        local = azure_native.network.LocalNetworkGateway(
            f"{name}-local-gateway", gateway_ip_address=args.public_ip,
            # With BGP Azure needs only the site's BGP address here; the blocks arrive over the session.
            local_network_address_space=azure_native.network.AddressSpaceArgs(
                address_prefixes=[f"{site_bgp}/32"] if bgp else list(args.networks)),
            bgp_settings=azure_native.network.BgpSettingsArgs(asn=args.asn, bgp_peering_address=site_bgp)
            if bgp else None, **common, opts=child)
        password = random.RandomPassword(f"{name}-psk", length=PSK_LENGTH, special=False, opts=child)
        key = pulumi.Output.secret(password.result)
        azure_native.network.VirtualNetworkGatewayConnection(
            f"{name}-connection", connection_type="IPsec", connection_protocol="IKEv2", connection_mode="Default",
            virtual_network_gateway1=azure_native.network.VirtualNetworkGatewayArgs(id=args.gateway_id),
            local_network_gateway2=azure_native.network.LocalNetworkGatewayArgs(id=local.id),
            shared_key=key, enable_bgp=bgp, use_policy_based_traffic_selectors=False,
            dpd_timeout_seconds=DPD_TIMEOUT_SECONDS,
            ipsec_policies=[azure_native.network.IpsecPolicyArgs(**AZURE_IPSEC_POLICY)],
            gateway_custom_bgp_ip_addresses=[azure_native.network.GatewayCustomBgpIpAddressIpConfigurationArgs(
                custom_bgp_ip_address=AZURE_GATEWAY_BGP_ADDRESS, ip_configuration_id=args.ip_configuration_id)]
            if bgp else None,
            **common, opts=pulumi.ResourceOptions(parent=self, additional_secret_outputs=["sharedKey"]))

        def site_end(values: list[Any]) -> list[dict[str, Any]]:
            address, psk = values
            return [gateway_tunnel(
                name=f"azure-{args.location}", cloud="azure", remote_address=address, local_id=args.public_ip,
                psk=psk, routing=args.routing, remote_networks=[args.vnet_cidr], remote_asn=AZURE_SIDE_ASN,
                inside_address=f"{site_bgp}/32", remote_inside_address=AZURE_GATEWAY_BGP_ADDRESS, if_id=0)]

        self.tunnels = pulumi.Output.secret(pulumi.Output.all(args.gateway_address, key).apply(site_end))
        self.register_outputs({"tunnels": self.tunnels})

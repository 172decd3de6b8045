"""AzureHybridGateway: what a landing zone's VNet needs to meet the on-prem sites: a route-based VPN gateway
(BGP on, AWS-style custom APIPA address 169.254.21.1 for the sites' sessions), an ExpressRoute gateway where a
site attaches a circuit, and a DNS Private Resolver whose inbound endpoint, at a fixed address, answers the sites'
forwarded queries from the private DNS zones linked to the VNet (privatelink ACR, Blob, Key Vault, AKS).

Both gateways sit in the landing zone's GatewaySubnet (components.azure.landing_zone, `hybrid=True`); each site's
connection is a components.azure.site_link.AzureSiteLink. Zone-redundant gateway SKUs (`...AZ`) and a zonal public
IP where the location has availability zones (components.azure.plan.ZONAL_LOCATIONS), the regional SKU elsewhere.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_azure_native as azure_native
from pydantic import Field
from sahab.components.azure.plan import LOCATION_ZONES, ZONAL_LOCATIONS
from sahab.components.hybrid_config import AZURE_SIDE_ASN
from sahab.components.hybrid_plan import AZURE_GATEWAY_BGP_ADDRESS
from sahab.components.kubernetes.common import Args
from sahab.components.network_plan import plan_resolver_address

IP_CONFIGURATION = "default"
VPN_SKU = "VpnGw1"  # + "AZ" where the location has zones; BGP and custom IPsec policies need VpnGw1 or larger
EXPRESSROUTE_SKUS = {True: "ErGw1AZ", False: "Standard"}  # by whether the location has zones


class AzureHybridGatewayArgs(Args):
    location: str
    """The landing zone's location. Required."""
    resource_group_name: Any
    """The landing zone's resource group (Input[str]). Required."""
    subscription_id: Any
    """The subscription (Input[str]): the gateway's own ip configuration id names it. Required."""
    vnet_id: Any
    """The VNet (Input[str]): the resolver serves it. Required."""
    vnet_cidr: str
    """The VNet's block: the resolver's fixed address is planned from it. Required."""
    gateway_subnet_id: Any
    """The GatewaySubnet (Input[str]). Required."""
    resolver_subnet_id: Any
    """The resolver's delegated inbound subnet (Input[str]). Required."""
    vpn: bool = True
    """Build the VPN gateway (a site has a VPN link). Default: true."""
    expressroute: bool = False
    """Build the ExpressRoute gateway (a site attaches a circuit). Default: false."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource. Default: none."""


class AzureHybridGateway(pulumi.ComponentResource):
    vpn_gateway_id: pulumi.Output[str] | None
    expressroute_gateway_id: pulumi.Output[str] | None
    public_address: pulumi.Output[str] | None
    ip_configuration_id: pulumi.Output[str]

    def __init__(self, name: str, args: AzureHybridGatewayArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:azure:HybridGateway", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        zonal = args.location in ZONAL_LOCATIONS
        common = {"resource_group_name": args.resource_group_name, "location": args.location, "tags": args.tags}
        self.vpn_gateway_id = self.expressroute_gateway_id = self.public_address = None
        gateway_name = f"{name}-vpn"
        self.ip_configuration_id = pulumi.Output.all(args.subscription_id, args.resource_group_name).apply(
            lambda v: f"/subscriptions/{v[0]}/resourceGroups/{v[1]}/providers/Microsoft.Network/"
                      f"virtualNetworkGateways/{gateway_name}/ipConfigurations/{IP_CONFIGURATION}")
        if args.vpn:
            address = self._public_ip(f"{name}-vpn-ip", zonal, common, child)
            gateway = azure_native.network.VirtualNetworkGateway(
                f"{name}-vpn-gateway", virtual_network_gateway_name=gateway_name, gateway_type="Vpn",
                vpn_type="RouteBased", vpn_gateway_generation="Generation1", active_active=False,
                sku=azure_native.network.VirtualNetworkGatewaySkuArgs(name=self._sku(VPN_SKU, zonal),
                                                                      tier=self._sku(VPN_SKU, zonal)),
                enable_bgp=True,
                bgp_settings=azure_native.network.BgpSettingsArgs(asn=AZURE_SIDE_ASN, bgp_peering_addresses=[
                    azure_native.network.IPConfigurationBgpPeeringAddressArgs(
                        ipconfiguration_id=self.ip_configuration_id,
                        custom_bgp_ip_addresses=[AZURE_GATEWAY_BGP_ADDRESS])]),
                ip_configurations=[azure_native.network.VirtualNetworkGatewayIPConfigurationArgs(
                    name=IP_CONFIGURATION, private_ip_allocation_method="Dynamic",
                    subnet=azure_native.network.SubResourceArgs(id=args.gateway_subnet_id),
                    public_ip_address=azure_native.network.SubResourceArgs(id=address.id))],
                **common, opts=child)
            self.vpn_gateway_id = gateway.id
            self.public_address = address.ip_address
        if args.expressroute:
            address = self._public_ip(f"{name}-er-ip", zonal, common, child)
            gateway = azure_native.network.VirtualNetworkGateway(
                f"{name}-er-gateway", gateway_type="ExpressRoute",
                sku=azure_native.network.VirtualNetworkGatewaySkuArgs(name=EXPRESSROUTE_SKUS[zonal],
                                                                      tier=EXPRESSROUTE_SKUS[zonal]),
                ip_configurations=[azure_native.network.VirtualNetworkGatewayIPConfigurationArgs(
                    name=IP_CONFIGURATION, private_ip_allocation_method="Dynamic",
                    subnet=azure_native.network.SubResourceArgs(id=args.gateway_subnet_id),
                    public_ip_address=azure_native.network.SubResourceArgs(id=address.id))],
                **common, opts=child)
            self.expressroute_gateway_id = gateway.id

        resolver = azure_native.dnsresolver.DnsResolver(
            f"{name}-dns-resolver", virtual_network=azure_native.dnsresolver.SubResourceArgs(id=args.vnet_id),
            **common, opts=child)
        self.resolver_address = plan_resolver_address(args.vnet_cidr)
        azure_native.dnsresolver.InboundEndpoint(
            f"{name}-dns-inbound", dns_resolver_name=resolver.name,
            ip_configurations=[azure_native.dnsresolver.IpConfigurationArgs(
                subnet=azure_native.dnsresolver.SubResourceArgs(id=args.resolver_subnet_id),
                private_ip_allocation_method="Static", private_ip_address=self.resolver_address)],
            **common, opts=child)
        self.register_outputs({"vpnGatewayId": self.vpn_gateway_id, "publicAddress": self.public_address,
                               "expressRouteGatewayId": self.expressroute_gateway_id,
                               "resolverAddress": self.resolver_address})

    @staticmethod
    def _sku(sku: str, zonal: bool) -> str:
        return f"{sku}AZ" if zonal else sku

    @staticmethod
    def _public_ip(name: str, zonal: bool, common: dict[str, Any],
                   opts: pulumi.ResourceOptions) -> azure_native.network.PublicIPAddress:
        """A static Standard address, in every zone where the location has them (a zone-redundant gateway
        needs one)."""
        return azure_native.network.PublicIPAddress(
            name, public_ip_allocation_method="Static", public_ip_address_version="IPv4",
            sku=azure_native.network.PublicIPAddressSkuArgs(name="Standard", tier="Regional"),
            zones=list(LOCATION_ZONES[common["location"]]) if zonal else None, **common, opts=opts)

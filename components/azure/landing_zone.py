"""LandingZone: what every Azure workload of the fleet in one location shares: a resource group, a VNet with
one node subnet per AKS cluster and a subnet for private endpoints, the private DNS zones those endpoints
register in (linked to the VNet), and the Key Vault that holds the customer-managed keys, reachable only
through its private endpoint (and by Azure's trusted services: disk encryption sets, storage accounts)."""

from __future__ import annotations

from typing import Annotated, Any

import pulumi
import pulumi_azure_native as azure_native
from pydantic import BaseModel, ConfigDict, Field
from sahab.components.azure.private_endpoints import PRIVATE_DNS_ZONES, private_endpoint
from sahab.components.network_plan import (
    plan_api_server_subnets,
    plan_gateway_subnet,
    plan_private_endpoint_subnet,
    plan_resolver_subnet,
    plan_vnet_subnets,
)

PRIVATE_ENDPOINT_SUBNET = "private-endpoints"
GATEWAY_SUBNET = "GatewaySubnet"  # the name Azure requires for VPN and ExpressRoute gateways
RESOLVER_SUBNET = "dns-resolver-inbound"
# What the on-prem sites reach in the VNet, and nothing else: HTTPS (the AKS API's private endpoint, the ACR,
# storage and Key Vault private endpoints). Without these rules the default AllowVnetInBound would admit every
# port from the sites, whose blocks Azure counts as VirtualNetwork once a gateway connects them.
SITE_ALLOW_PRIORITY = 200
SITE_DENY_PRIORITY = 4000


class LandingZoneArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    location: str
    """Azure location of every resource here (uaenorth or uaecentral). Required."""
    tenant_id: Any
    """Entra tenant of the Key Vault (Input[str]). Required."""
    vault_name: Annotated[str, Field(pattern=r"^[a-zA-Z][a-zA-Z0-9-]{1,22}[a-zA-Z0-9]$")]
    """Globally unique Key Vault name (see `components.azure.plan.key_vault_name`). Required."""
    vnet_cidr: str = "10.50.0.0/16"
    """VNet address range. Default: 10.50.0.0/16."""
    clusters: tuple[str, ...] = ()
    """AKS clusters that get a node subnet here, in order (at most 3). Default: none (the VNet then holds only
    the private endpoints)."""
    hybrid: bool = False
    """Add a GatewaySubnet and the DNS Private Resolver's inbound subnet for the sites' links
    (components.azure.hybrid_gateway). Default: false."""
    site_cidrs: tuple[str, ...] = ()
    """The linked sites' blocks: the NSG admits them on HTTPS only. Default: none."""
    soft_delete_retention_days: Annotated[int, Field(ge=7, le=90)] = 90
    """Days a deleted key or vault stays recoverable. Default: 90 (the maximum)."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource. Default: none."""


class LandingZone(pulumi.ComponentResource):
    resource_group_name: pulumi.Output[str]
    resource_group_id: pulumi.Output[str]
    vault_id: pulumi.Output[str]
    vault_name: pulumi.Output[str]
    vault_uri: pulumi.Output[str]
    subnet_ids: dict[str, pulumi.Output[str]]
    private_endpoint_subnet_id: pulumi.Output[str]
    dns_zone_ids: dict[str, pulumi.Output[str]]

    def __init__(self, name: str, args: LandingZoneArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:azure:LandingZone", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.location = args.location
        tags = {**args.tags, "sahab.io/component": name}

        group = azure_native.resources.ResourceGroup(f"{name}-rg", location=args.location, tags=tags, opts=child)
        vault = azure_native.keyvault.Vault(
            f"{name}-kv", vault_name=args.vault_name, resource_group_name=group.name, location=args.location,
            properties=azure_native.keyvault.VaultPropertiesArgs(
                tenant_id=args.tenant_id,
                sku=azure_native.keyvault.SkuArgs(family="A", name="premium"),  # HSM-backed keys
                enable_rbac_authorization=True,
                enable_soft_delete=True,
                soft_delete_retention_in_days=args.soft_delete_retention_days,
                enable_purge_protection=True,
                # Disk encryption sets and storage accounts reach the keys as trusted services; nothing else does.
                network_acls=azure_native.keyvault.NetworkRuleSetArgs(default_action="Deny", bypass="AzureServices"),
                enabled_for_deployment=False, enabled_for_template_deployment=False,
                enabled_for_disk_encryption=False, public_network_access="Disabled"),
            tags=tags, opts=child)

        plan = plan_vnet_subnets(args.vnet_cidr, args.clusters)
        nsg = azure_native.network.NetworkSecurityGroup(
            f"{name}-nsg", resource_group_name=group.name, location=args.location, tags=tags, opts=child,
            security_rules=site_rules(args.site_cidrs, args.vnet_cidr) or None)
        subnets = [azure_native.network.SubnetArgs(
            name=f"nodes-{cluster}", address_prefix=cidr,
            network_security_group=azure_native.network.NetworkSecurityGroupArgs(id=nsg.id),
            service_endpoints=[azure_native.network.ServiceEndpointPropertiesFormatArgs(
                service="Microsoft.Storage", locations=[args.location])],
            default_outbound_access=False)
            for cluster, cidr in plan.items()]
        # Each cluster's API server (API Server VNet Integration): a subnet delegated to AKS.
        api = plan_api_server_subnets(args.vnet_cidr, args.clusters)
        subnets += [azure_native.network.SubnetArgs(
            name=f"apiserver-{cluster}", address_prefix=cidr,
            network_security_group=azure_native.network.NetworkSecurityGroupArgs(id=nsg.id),
            delegations=[azure_native.network.DelegationArgs(
                name="aks", service_name="Microsoft.ContainerService/managedClusters")],
            default_outbound_access=False)
            for cluster, cidr in api.items()]
        # The NSG applies to the private endpoints too (network policies on for them).
        subnets.append(azure_native.network.SubnetArgs(
            name=PRIVATE_ENDPOINT_SUBNET, address_prefix=plan_private_endpoint_subnet(args.vnet_cidr),
            network_security_group=azure_native.network.NetworkSecurityGroupArgs(id=nsg.id),
            private_endpoint_network_policies="Enabled", default_outbound_access=False))
        if args.hybrid:
            # No NSG on either: Azure refuses one on the GatewaySubnet; the resolver answers the sites on DNS.
            subnets.append(azure_native.network.SubnetArgs(
                name=GATEWAY_SUBNET, address_prefix=plan_gateway_subnet(args.vnet_cidr), default_outbound_access=False))
            subnets.append(azure_native.network.SubnetArgs(
                name=RESOLVER_SUBNET, address_prefix=plan_resolver_subnet(args.vnet_cidr),
                default_outbound_access=False, delegations=[azure_native.network.DelegationArgs(name="dns-resolver",
                                                                 service_name="Microsoft.Network/dnsResolvers")]))
        # Subnets inline, so the VNet and its subnets never fight over the subnet list.
        vnet = azure_native.network.VirtualNetwork(
            f"{name}-vnet", resource_group_name=group.name, location=args.location,
            address_space=azure_native.network.AddressSpaceArgs(address_prefixes=[args.vnet_cidr]),
            subnets=subnets, tags=tags, opts=child)
        self.subnet_ids = {cluster: vnet.id.apply(lambda vid, c=cluster: f"{vid}/subnets/nodes-{c}")
                           for cluster in plan}
        self.api_server_subnet_ids = {cluster: vnet.id.apply(lambda vid, c=cluster: f"{vid}/subnets/apiserver-{c}")
                                      for cluster in api}
        self.private_endpoint_subnet_id = vnet.id.apply(lambda vid: f"{vid}/subnets/{PRIVATE_ENDPOINT_SUBNET}")
        self.vnet_id = vnet.id
        self.vnet_cidr = args.vnet_cidr
        self.gateway_subnet_id = vnet.id.apply(lambda vid: f"{vid}/subnets/{GATEWAY_SUBNET}") if args.hybrid else None
        self.resolver_subnet_id = vnet.id.apply(lambda vid: f"{vid}/subnets/{RESOLVER_SUBNET}") \
            if args.hybrid else None

        self.dns_zone_ids = {}
        for service, zone_name in PRIVATE_DNS_ZONES.items():
            zone = azure_native.privatedns.PrivateZone(f"{name}-dns-{service}", private_zone_name=zone_name,
                                                       resource_group_name=group.name, location="global",
                                                       tags=tags, opts=child)
            azure_native.privatedns.VirtualNetworkLink(
                f"{name}-dns-{service}-link", private_zone_name=zone.name, resource_group_name=group.name,
                location="global", virtual_network=azure_native.privatedns.SubResourceArgs(id=vnet.id),
                registration_enabled=False, tags=tags, opts=child)
            self.dns_zone_ids[service] = zone.id
        private_endpoint(f"{name}-kv-endpoint", target_id=vault.id, group="vault",
                         subnet_id=self.private_endpoint_subnet_id, dns_zone_id=self.dns_zone_ids["vault"],
                         location=args.location, resource_group_name=group.name, tags=tags, opts=child)

        self.resource_group_name = group.name
        self.resource_group_id = group.id
        self.vault_id = vault.id
        self.vault_name = vault.name
        self.vault_uri = vault.properties.apply(lambda p: p.vault_uri)
        self.register_outputs({"resourceGroupName": self.resource_group_name, "vaultId": self.vault_id,
                               "vaultUri": self.vault_uri, "subnetIds": self.subnet_ids,
                               "privateEndpointSubnetId": self.private_endpoint_subnet_id})


def site_rules(site_cidrs: tuple[str, ...], vnet_cidr: str) -> list[azure_native.network.SecurityRuleArgs]:
    """Inbound from the linked sites: HTTPS to the VNet, everything else denied."""
    if not site_cidrs:
        return []
    return [
        azure_native.network.SecurityRuleArgs(
            name="allow-sites-https", priority=SITE_ALLOW_PRIORITY, direction="Inbound", access="Allow",
            protocol="Tcp", source_address_prefixes=list(site_cidrs), source_port_range="*",
            destination_address_prefix=vnet_cidr, destination_port_range="443",
            description="HTTPS from the on-prem sites: the AKS API, ACR, storage and Key Vault private endpoints"),
        azure_native.network.SecurityRuleArgs(
            name="deny-sites-other", priority=SITE_DENY_PRIORITY, direction="Inbound", access="Deny",
            protocol="*", source_address_prefixes=list(site_cidrs), source_port_range="*",
            destination_address_prefix="*", destination_port_range="*",
            description="Nothing else from the on-prem sites"),
    ]

"""Private endpoints: a storage account, Key Vault or container registry reached at an address inside a VNet.

Each endpoint sits in the landing zone's private-endpoint subnet and registers its address in the private DNS
zone of its service (through a DNS zone group), so the service's usual name resolves to the private address
inside the VNet. The services themselves then refuse public network access.
"""

from __future__ import annotations

import pulumi
import pulumi_azure_native as azure_native

# Private DNS zone of each sub-resource (group id) Sahab puts behind a private endpoint (Azure's
# "private endpoint DNS" table for the public cloud).
PRIVATE_DNS_ZONES = {"blob": "privatelink.blob.core.windows.net", "vault": "privatelink.vaultcore.azure.net",
                     # ACR: the zone group writes both the login server and its regional data endpoint here.
                     "registry": "privatelink.azurecr.io"}


def private_endpoint(name: str, *, target_id: pulumi.Input[str], group: str, subnet_id: pulumi.Input[str],
                     dns_zone_id: pulumi.Input[str], location: str, resource_group_name: pulumi.Input[str],
                     tags: dict[str, str], opts: pulumi.ResourceOptions) -> azure_native.network.PrivateEndpoint:
    """A private endpoint to one sub-resource (`group`: blob, vault, registry) of `target_id`, with its DNS
    records kept in `dns_zone_id` by a zone group."""
    if group not in PRIVATE_DNS_ZONES:
        raise ValueError(f"no private DNS zone known for {group!r}; known: {', '.join(PRIVATE_DNS_ZONES)}")
    endpoint = azure_native.network.PrivateEndpoint(
        name, resource_group_name=resource_group_name, location=location,
        subnet=azure_native.network.SubnetArgs(id=subnet_id),
        private_link_service_connections=[azure_native.network.PrivateLinkServiceConnectionArgs(
            name=f"{name}-{group}", private_link_service_id=target_id, group_ids=[group])],
        tags=tags, opts=opts)
    azure_native.network.PrivateDnsZoneGroup(
        f"{name}-dns", private_endpoint_name=endpoint.name, resource_group_name=resource_group_name,
        private_dns_zone_group_name="default",
        private_dns_zone_configs=[azure_native.network.PrivateDnsZoneConfigArgs(
            name=PRIVATE_DNS_ZONES[group].replace(".", "-"), private_dns_zone_id=dns_zone_id)],
        opts=opts)
    return endpoint

"""Leak (egress): a UAE North Redis cache geo-replicated to a linked cache in West Europe that this program does
not create."""
# expect: cloud-all-resource-references-in-country geo-link

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

def cache(name, location):
    """A Premium cache (geo-replication needs one) that serves TLS 1.2 only."""
    return azure_native.redis.Redis(name, resource_group_name=rg.name, location=location,
                                    sku={"name": "Premium", "family": "P", "capacity": 1},
                                    enable_non_ssl_port=False, minimum_tls_version="1.2",
                                    public_network_access="Disabled")

primary = cache("primary", "uaenorth")
azure_native.redis.LinkedServer(
    "geo-link", resource_group_name=rg.name, name=primary.name, server_role="Secondary",
    linked_redis_cache_id="/subscriptions/0000/resourceGroups/dr/providers/Microsoft.Cache/redis/dr-cache",
    linked_redis_cache_location="westeurope")

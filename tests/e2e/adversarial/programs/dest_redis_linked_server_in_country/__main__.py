"""Look-alike (egress): a UAE North Redis cache geo-replicated to a UAE Central cache of this program."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

def cache(name, location):
    """A Premium cache (geo-replication needs one) that serves TLS 1.2 only."""
    return azure_native.redis.Redis(name, resource_group_name=rg.name, location=location,
                                    sku={"name": "Premium", "family": "P", "capacity": 1},
                                    enable_non_ssl_port=False, minimum_tls_version="1.2",
                                    public_network_access="Disabled")

primary = cache("primary", "uaenorth")
secondary = cache("secondary", "uaecentral")
azure_native.redis.LinkedServer("geo-link", resource_group_name=rg.name, name=primary.name, server_role="Secondary",
                                linked_redis_cache_id=secondary.id, linked_redis_cache_location="uaecentral")

"""Look-alike (egress): Event Hubs and Service Bus namespaces in UAE North paired for Geo-DR with namespaces of
this program in UAE Central."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
for kind, module, sku in (("events", azure_native.eventhub, {"name": "Standard"}),
                          ("bus", azure_native.servicebus, {"name": "Premium", "tier": "Premium", "capacity": 1})):
    primary = module.Namespace(kind, resource_group_name=rg.name, location="uaenorth", sku=sku,
                               minimum_tls_version="1.2")
    secondary = module.Namespace(f"{kind}-dr", resource_group_name=rg.name, location="uaecentral", sku=sku,
                                 minimum_tls_version="1.2")
    module.DisasterRecoveryConfig(f"{kind}-geo-dr", resource_group_name=rg.name, namespace_name=primary.name,
                                  alias=kind, partner_namespace=secondary.id)

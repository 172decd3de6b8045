"""Leak (fail closed): an Event Hubs namespace paired for Geo-DR with a namespace found by a lookup the stack does
not declare: after a failover, producers sending to the alias send there."""
# expect: cloud-all-resource-references-in-country geo-dr

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
primary = azure_native.eventhub.Namespace("events", resource_group_name=rg.name, location="uaenorth",
                                          sku={"name": "Standard"}, minimum_tls_version="1.2")
partner = azure_native.eventhub.get_namespace_output(namespace_name="events-dr", resource_group_name="dr")
azure_native.eventhub.DisasterRecoveryConfig("geo-dr", resource_group_name=rg.name, namespace_name=primary.name,
                                             alias="events", partner_namespace=partner.id)

"""Leak (egress): a Service Bus namespace paired for Geo-DR with a namespace in West Europe that this program does
not create (its ARM id carries no location, so it fails closed; the pairing is what sends data there)."""
# expect: cloud-all-resource-references-in-country geo-dr

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
primary = azure_native.servicebus.Namespace("bus", resource_group_name=rg.name, location="uaenorth",
                                            sku={"name": "Premium", "tier": "Premium", "capacity": 1},
                                            minimum_tls_version="1.2")
azure_native.servicebus.DisasterRecoveryConfig(
    "geo-dr", resource_group_name=rg.name, namespace_name=primary.name, alias="bus",
    partner_namespace="/subscriptions/0000/resourceGroups/dr-westeurope/providers/Microsoft.ServiceBus/namespaces/bus-dr")

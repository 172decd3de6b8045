"""Leak: an API Management service with an additional gateway location taken from a looked-up resource group:
the gateway there terminates, caches and forwards every API call."""
# expect: cloud-all-resource-references-in-country apim

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
edge = azure_native.resources.get_resource_group_output(resource_group_name="edge-gateways")
azure_native.apimanagement.ApiManagementService(
    "apim", resource_group_name=rg.name, location="uaenorth", publisher_email="ops@example.ae",
    publisher_name="Sahab", sku={"name": "Premium", "capacity": 1}, public_network_access="Enabled",
    additional_locations=[{"location": edge.location, "sku": {"name": "Premium", "capacity": 1}}])

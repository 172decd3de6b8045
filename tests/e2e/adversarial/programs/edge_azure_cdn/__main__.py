"""Leak: an Azure CDN profile (location global)."""
# expect: cloud-all-resource-edge-service-forbidden cdn

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.cdn.Profile("cdn", resource_group_name=rg.name, location="global", sku={"name": "Standard_Microsoft"})

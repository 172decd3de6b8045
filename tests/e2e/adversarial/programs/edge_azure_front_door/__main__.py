"""Leak: Azure Front Door (classic)."""
# expect: cloud-all-resource-edge-service-forbidden fd

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.frontdoor.FrontDoor("fd", resource_group_name=rg.name, location="global", enabled_state="Enabled")

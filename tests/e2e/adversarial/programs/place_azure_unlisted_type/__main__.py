"""Leak: a type no list in the pack names (Dev Center) in West Europe."""
# expect: azure-all-resource-location-allowed dc

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.devcenter.DevCenter("dc", resource_group_name=rg.name, location="westeurope")

"""Leak: the classic `azure` package in West Europe."""
# expect: azure-all-resource-location-allowed net

import pulumi

pulumi.CustomResource("azure:network/virtualNetwork:VirtualNetwork", "net", {
    "location": "westeurope", "resourceGroupName": "rg", "addressSpaces": ["10.0.0.0/16"]})

"""Leak: the resource group is in West Europe; the network names no location and inherits it."""
# expect: azure-all-resource-location-allowed vnet
# expect: azure-all-resource-location-allowed rg

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="westeurope")
azure_native.network.VirtualNetwork("vnet", resource_group_name=rg.name,
                                    address_space={"address_prefixes": ["10.0.0.0/16"]})

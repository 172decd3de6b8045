"""Leak: an explicit azure-native provider defaults groups to West Europe."""
# expect: azure-all-resource-location-allowed rg
# expect: azure-pulumi-provider-location-allowed eu
# expect: azure-all-resource-location-allowed ip

import pulumi
import pulumi_azure_native as azure_native

eu = azure_native.Provider("eu", location="westeurope")
rg = azure_native.resources.ResourceGroup("rg", opts=pulumi.ResourceOptions(provider=eu))
azure_native.network.PublicIPAddress("ip", resource_group_name=rg.name, opts=pulumi.ResourceOptions(provider=eu))

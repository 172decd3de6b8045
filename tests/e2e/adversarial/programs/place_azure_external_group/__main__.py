"""Leak (fail closed): a group this program does not create; its location is read at update time and cannot be shown."""
# expect: azure-all-resource-location-allowed nsg

import pulumi_azure_native as azure_native

azure_native.network.NetworkSecurityGroup("nsg", resource_group_name="shared-rg")

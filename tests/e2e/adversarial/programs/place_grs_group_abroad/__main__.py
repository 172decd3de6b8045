"""Leak (one resolver): a GRS account without a location of its own, in a group in North Europe: it sits there and
copies to West Europe."""
# expect: azure-storage-storageaccount-geo-replica-in-country acct
# expect: azure-all-resource-location-allowed acct

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="northeurope")
azure_native.storage.StorageAccount("acct", resource_group_name=rg.name, sku={"name": "Standard_GRS"}, kind="StorageV2",
    minimum_tls_version="TLS1_2", enable_https_traffic_only=True, allow_blob_public_access=False)

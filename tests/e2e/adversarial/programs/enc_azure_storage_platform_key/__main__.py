"""Leak: an Azure storage account under Microsoft-managed keys."""
# expect: azure-storage-datastore-encrypted-cmk data

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.storage.StorageAccount("data", resource_group_name=rg.name, kind="StorageV2",
                                    sku={"name": "Standard_ZRS"}, minimum_tls_version="TLS1_2",
                                    enable_https_traffic_only=True, allow_blob_public_access=False)

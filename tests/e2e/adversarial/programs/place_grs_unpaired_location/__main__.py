"""Leak (one resolver): RA-GRS in Qatar Central, a location without a pair: no in-country second copy can be shown."""
# expect: azure-storage-storageaccount-geo-replica-in-country acct

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="qatarcentral")
azure_native.storage.StorageAccount("acct", resource_group_name=rg.name, sku={"name": "Standard_RAGRS"},
    kind="StorageV2", minimum_tls_version="TLS1_2", enable_https_traffic_only=True, allow_blob_public_access=False)

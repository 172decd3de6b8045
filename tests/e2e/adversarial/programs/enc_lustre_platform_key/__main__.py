"""Leak: an Azure Managed Lustre file system for training data in UAE North under Microsoft's platform key (no
`encryption_settings`)."""
# expect: azure-storage-datastore-encrypted-cmk datasets

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.storagecache.AmlFilesystem(
    "datasets", resource_group_name=rg.name, location="uaenorth", storage_capacity_ti_b=16, zones=["1"],
    sku={"name": "AMLFS-Durable-Premium-125"}, maintenance_window={"day_of_week": "Friday", "time_of_day_utc": "02:00"},
    filesystem_subnet="/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/providers/"
                      "Microsoft.Network/virtualNetworks/train/subnets/lustre")

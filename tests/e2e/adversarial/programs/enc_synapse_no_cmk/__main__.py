"""Leak: a Synapse workspace without a customer-managed key."""
# expect: azure-storage-datastore-encrypted-cmk synapse

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.synapse.Workspace("synapse", resource_group_name=rg.name, identity={"type": "SystemAssigned"},
                               default_data_lake_storage={"account_url": "https://lake.dfs.core.windows.net",
                                                          "filesystem": "fs"})

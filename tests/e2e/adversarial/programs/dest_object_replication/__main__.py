"""Leak (fail closed): blob object replication to an account outside the program."""
# expect: cloud-all-resource-references-in-country orp

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.storage.ObjectReplicationPolicy("orp", resource_group_name=rg.name, account_name="source",
    object_replication_policy_id="default", source_account="source",
    destination_account="/subscriptions/0000/resourceGroups/far/providers/Microsoft.Storage/storageAccounts/far",
    rules=[{"source_container": "data", "destination_container": "data"}])

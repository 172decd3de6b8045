"""Leak (egress): machine learning workspace datastores on a storage account and a Data Lake store this program does
not create, by plain name: the workspace's jobs write their outputs and models there."""
# expect: cloud-all-resource-references-in-country partner-datastore
# expect: cloud-all-resource-references-in-country partner-lake

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.machinelearningservices.Datastore(
    "partner-datastore", resource_group_name=rg.name, workspace_name="ml", name="partner",
    properties={"datastore_type": "AzureBlob", "account_name": "partnerdrop", "container_name": "runs",
                          "endpoint": "core.windows.net", "credentials": {"credentials_type": "None"}})
azure_native.machinelearningservices.Datastore(
    "partner-lake", resource_group_name=rg.name, workspace_name="ml", name="lake",
    properties={"datastore_type": "AzureDataLakeGen1", "store_name": "partnerlake",
                "credentials": {"credentials_type": "None"}})

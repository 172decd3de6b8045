"""Leak: an Azure Databricks workspace, a data store no rule of the pack judges, left without its optional
encryption block: the type holds data whether or not the program sets a customer-managed key."""
# expect: cloud-all-datastore-judged dbx

import pulumi_azure_native as az

rg = az.resources.ResourceGroup("rg")
az.databricks.Workspace("dbx", resource_group_name=rg.name, sku={"name": "premium"},
    managed_resource_group_id="/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/dbx-managed")

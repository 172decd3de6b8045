"""Leak (egress): a Log Analytics data export rule copying every new row of its tables to a storage account whose
id is assembled with `apply` from the client's subscription and a resource group this program does not create."""
# expect: cloud-all-resource-references-in-country export

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
workspace = azure_native.operationalinsights.Workspace("logs", resource_group_name=rg.name, location="uaenorth",
                                                       sku={"name": "PerGB2018"}, retention_in_days=90)
client = azure_native.authorization.get_client_config_output()
target = client.subscription_id.apply(
    lambda s: f"/subscriptions/{s}/resourceGroups/hq-archive/providers/Microsoft.Storage/storageAccounts/hqlogs")
azure_native.operationalinsights.DataExport("export", resource_group_name=rg.name, workspace_name=workspace.name,
                                            data_export_name="all", table_names=["SigninLogs", "AuditLogs"],
                                            resource_id=target, enable=True)

"""Leak (egress): a Data Share invitation sent to an outside email; whoever accepts copies the data anywhere."""
# expect: cloud-all-resource-references-in-country partner

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
account = azure_native.datashare.Account("shares", resource_group_name=rg.name, location="uaenorth",
                                         identity={"type": "SystemAssigned"})
share = azure_native.datashare.Share("sales", resource_group_name=rg.name, account_name=account.name,
                                     share_kind="CopyBased")
azure_native.datashare.Invitation("partner", resource_group_name=rg.name, account_name=account.name,
                                  share_name=share.name, target_email="analyst@partner-analytics.io")

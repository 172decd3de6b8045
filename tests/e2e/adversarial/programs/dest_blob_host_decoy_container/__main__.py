"""Leak (fail closed): an action group's webhook posts alerts to a blob endpoint of a storage account this program
does not create; the program declares a blob container under that account's name (the container is no account:
the account it sits in may be anywhere)."""
# expect: cloud-all-resource-references-in-country alerts

import pulumi_azure_native as azure

rg = azure.resources.ResourceGroup("rg", location="uaenorth")
azure.storage.BlobContainer("decoy", account_name="partnerdrop", resource_group_name=rg.name,
                            container_name="alerts", public_access="None")
azure.monitor.ActionGroup("alerts", resource_group_name=rg.name, location="Global", group_short_name="alerts",
                          enabled=True, webhook_receivers=[{
                              "name": "drop", "service_uri": "https://partnerdrop.blob.core.windows.net/alerts/in",
                              "use_common_alert_schema": True}])

"""Leak (fail closed): an Azure Monitor action group that posts every alert (with the common alert schema: the
alert's context, log search results included) to a webhook whose host nobody can place."""
# expect: cloud-all-resource-references-in-country alerts

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.monitor.ActionGroup("alerts", resource_group_name=rg.name, location="Global", group_short_name="ops",
                                 enabled=True, webhook_receivers=[{
                                     "name": "partner", "service_uri": "https://alerts.partner.example.com/hook",
                                     "use_common_alert_schema": True}])

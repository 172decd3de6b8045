"""Leak (fail closed): an Azure Monitor action group that streams every alert (with the common alert schema: the
alert's context, log search results included) to an Event Hub in a namespace this program does not create: a
namespace name carries no place, so it fails closed."""
# expect: cloud-all-resource-references-in-country alerts

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.monitor.ActionGroup(
    "alerts", resource_group_name=rg.name, location="Global", group_short_name="ops", enabled=True,
    event_hub_receivers=[{"name": "siem", "event_hub_name_space": "partner-siem-ingest", "event_hub_name": "alerts",
                          "subscription_id": "11111111-2222-3333-4444-555555555555",
                          "use_common_alert_schema": True}])

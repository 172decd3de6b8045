"""Look-alike (egress): an Azure Monitor action group that streams alerts to an Event Hub in a namespace this
program creates in UAE North (named by its name, as the receiver takes it)."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
namespace = azure_native.eventhub.Namespace("siem", resource_group_name=rg.name, location="uaenorth",
                                            namespace_name="sahab-siem-uaen", sku={"name": "Standard"},
                                            minimum_tls_version="1.2", public_network_access="Disabled")
hub = azure_native.eventhub.EventHub("alerts-hub", resource_group_name=rg.name, namespace_name=namespace.name,
                                     event_hub_name="alerts", partition_count=2)
client = azure_native.authorization.get_client_config_output()
azure_native.monitor.ActionGroup(
    "alerts", resource_group_name=rg.name, location="Global", group_short_name="ops", enabled=True,
    event_hub_receivers=[{"name": "siem", "event_hub_name_space": "sahab-siem-uaen", "event_hub_name": "alerts",
                          "subscription_id": client.subscription_id, "use_common_alert_schema": True},
                         {"name": "siem-output", "event_hub_name_space": namespace.name,
                          "event_hub_name": hub.name, "subscription_id": client.subscription_id}])

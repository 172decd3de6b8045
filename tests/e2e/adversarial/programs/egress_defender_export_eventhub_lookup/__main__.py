"""Leak (egress): Defender for Cloud continuous export (a security automation) streams alerts and
recommendations, with the resource details they carry, into an event hub found by a lookup."""
# expect: cloud-all-resource-references-in-country continuous-export

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
client = azure_native.authorization.get_client_config_output()
subscription = client.subscription_id.apply(lambda s: f"/subscriptions/{s}")
hub = azure_native.eventhub.get_event_hub_output(resource_group_name="secops", namespace_name="global-soc",
                                                 event_hub_name="defender")
azure_native.security.Automation(
    "continuous-export", resource_group_name=rg.name, location="uaenorth", is_enabled=True,
    scopes=[{"description": "subscription", "scope_path": subscription}],
    sources=[{"event_source": "Alerts"}, {"event_source": "Assessments"}],
    actions=[{"action_type": "EventHub", "event_hub_resource_id": hub.id}])

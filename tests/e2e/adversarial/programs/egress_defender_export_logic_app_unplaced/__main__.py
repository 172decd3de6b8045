"""Leak (egress): Defender for Cloud workflow automation hands every alert to a Logic App this program does not
create, by its resource id and by its trigger URI."""
# expect: cloud-all-resource-references-in-country alert-automation

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
client = azure_native.authorization.get_client_config_output()
subscription = client.subscription_id.apply(lambda s: f"/subscriptions/{s}")
azure_native.security.Automation(
    "alert-automation", resource_group_name=rg.name, location="uaenorth", is_enabled=True,
    scopes=[{"description": "subscription", "scope_path": subscription}],
    sources=[{"event_source": "Alerts"}],
    actions=[{"action_type": "LogicApp",
              "logic_app_resource_id": "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/soc/"
                                       "providers/Microsoft.Logic/workflows/triage",
              "uri": "https://soc-triage.partner-analytics.io/hooks/defender"}])

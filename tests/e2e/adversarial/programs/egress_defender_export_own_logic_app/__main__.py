"""Look-alike: Defender for Cloud workflow automation hands alerts to a Logic App this program creates in UAE North."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
client = azure_native.authorization.get_client_config_output()
subscription = client.subscription_id.apply(lambda s: f"/subscriptions/{s}")
triage = azure_native.logic.Workflow("triage", resource_group_name=rg.name, location="uaenorth", state="Enabled")
azure_native.security.Automation(
    "alert-automation", resource_group_name=rg.name, location="uaenorth", is_enabled=True,
    scopes=[{"description": "subscription", "scope_path": subscription}],
    sources=[{"event_source": "Alerts"}],
    actions=[{"action_type": "LogicApp", "logic_app_resource_id": triage.id}])

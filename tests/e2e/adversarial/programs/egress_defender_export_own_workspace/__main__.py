"""Look-alike: Defender for Cloud continuous export of alerts and recommendations into a Log Analytics workspace
this program creates in UAE North."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
client = azure_native.authorization.get_client_config_output()
subscription = client.subscription_id.apply(lambda s: f"/subscriptions/{s}")
workspace = azure_native.operationalinsights.Workspace("soc", resource_group_name=rg.name, location="uaenorth",
                                                       sku={"name": "PerGB2018"}, retention_in_days=90)
azure_native.security.Automation(
    "continuous-export", resource_group_name=rg.name, location="uaenorth", is_enabled=True,
    scopes=[{"description": "subscription", "scope_path": subscription}],
    sources=[{"event_source": "Alerts"}, {"event_source": "Assessments"}],
    actions=[{"action_type": "Workspace", "workspace_resource_id": workspace.id}])

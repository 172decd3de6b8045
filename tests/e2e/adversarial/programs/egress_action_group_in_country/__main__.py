"""Look-alike (egress): an action group that mails the on-call team and calls a Logic App in UAE North, through a
webhook that authenticates with Entra ID (its object id and identifier URI say who it is, not where data goes)."""
# expect: pass

import pulumi_azure_native as azure_native

CALLBACK = "https://prod-12.uaenorth.logic.azure.com:443/workflows/0a1b2c/triggers/manual/paths/invoke"

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.monitor.ActionGroup(
    "alerts", resource_group_name=rg.name, location="Global", group_short_name="ops", enabled=True,
    email_receivers=[{"name": "oncall", "email_address": "oncall@example.ae", "use_common_alert_schema": True}],
    logic_app_receivers=[{"name": "triage", "callback_url": CALLBACK, "use_common_alert_schema": True,
                          "resource_id": rg.id.apply(lambda g: f"{g}/providers/Microsoft.Logic/workflows/triage")}],
    webhook_receivers=[{"name": "triage-aad", "service_uri": CALLBACK, "use_aad_auth": True,
                        "object_id": "6f1c2d3e-0000-4000-8000-00000000aa01", "identifier_uri": "api://sahab-alerts",
                        "tenant_id": "6f1c2d3e-0000-4000-8000-00000000bb02", "use_common_alert_schema": True}])

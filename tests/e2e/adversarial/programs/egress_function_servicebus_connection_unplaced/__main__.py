"""Leak (egress): a function app's output binding sends to a Service Bus namespace named only inside a connection
string (`Endpoint=sb://...`), which this program does not create."""
# expect: cloud-all-resource-references-in-country orders

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="functionapp",
                                       sku={"name": "EP1", "tier": "ElasticPremium"})
azure_native.web.WebApp(
    "orders", resource_group_name=rg.name, location="uaenorth", kind="functionapp", server_farm_id=plan.id,
    https_only=True, site_config={"min_tls_version": "1.2", "ftps_state": "Disabled", "app_settings": [
        {"name": "FUNCTIONS_EXTENSION_VERSION", "value": "~4"},
        {"name": "OrdersBus",
         "value": "Endpoint=sb://partner-orders.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=eA=="}]})

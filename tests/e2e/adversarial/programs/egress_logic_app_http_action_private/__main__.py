"""Look-alike: a Logic App whose HTTP action posts to a private address of its own network, and a Data Factory Web
activity that calls a function app this program creates in UAE North."""
# expect: pass

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="functionapp",
                                       sku={"name": "EP1", "tier": "ElasticPremium"})
app = azure_native.web.WebApp("ingest", resource_group_name=rg.name, location="uaenorth", kind="functionapp",
                              server_farm_id=plan.id, https_only=True,
                              site_config={"min_tls_version": "1.2", "ftps_state": "Disabled"})
azure_native.logic.Workflow(
    "relay", resource_group_name=rg.name, location="uaenorth", state="Enabled",
    definition={
        "contentVersion": "1.0.0.0",
        "triggers": {"manual": {"type": "Request", "kind": "Http", "inputs": {"schema": {}}}},
        "actions": {"forward": {"type": "Http", "runAfter": {},
                                "inputs": {"method": "POST", "uri": "https://10.30.0.8/events",
                                           "body": "@triggerBody()"}}}})
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")
azure_native.datafactory.Pipeline(
    "notify", resource_group_name=rg.name, factory_name=factory.name, pipeline_name="notify",
    activities=[{"name": "post", "type": "WebActivity", "method": "POST",
                 "url": pulumi.Output.concat("https://", app.name, ".azurewebsites.net/api/ingest"),
                 "body": "@pipeline().parameters.payload"}])

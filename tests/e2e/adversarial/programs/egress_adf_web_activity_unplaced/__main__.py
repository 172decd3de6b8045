"""Leak (egress): a Data Factory pipeline whose Web activity POSTs a lookup's result to an outside host, and a Logic
App whose HTTP action, nested in a condition, sends to a URL held in a workflow parameter."""
# expect: cloud-all-resource-references-in-country notify
# expect: cloud-all-resource-references-in-country branchy

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")
azure_native.datafactory.Pipeline(
    "notify", resource_group_name=rg.name, factory_name=factory.name, pipeline_name="notify",
    activities=[{"name": "post", "type": "WebActivity", "method": "POST",
                 "url": "https://hooks.partner-analytics.io/adf", "body": "@pipeline().parameters.payload"}])
azure_native.logic.Workflow(
    "branchy", resource_group_name=rg.name, location="uaenorth", state="Enabled",
    parameters={"sink": {"value": "https://collector.partner-analytics.io/in"}},
    definition={
        "contentVersion": "1.0.0.0",
        "parameters": {"sink": {"type": "String"}},
        "triggers": {"manual": {"type": "Request", "kind": "Http", "inputs": {"schema": {}}}},
        "actions": {"check": {"type": "If", "expression": {"and": [{"equals": [1, 1]}]}, "runAfter": {},
                              "actions": {"send": {"type": "Http", "inputs": {
                                  "method": "POST", "uri": "@parameters('sink')", "body": "@triggerBody()"}}}}}})

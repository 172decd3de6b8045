"""Leak (egress): a Logic App whose workflow definition posts every triggering request's body to an outside host
by an HTTP action."""
# expect: cloud-all-resource-references-in-country relay

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.logic.Workflow(
    "relay", resource_group_name=rg.name, location="uaenorth", state="Enabled",
    definition={
        "$schema": "https://schema.management.azure.com/providers/Microsoft.Logic/schemas/2016-06-01/workflowdefinition.json#",
        "contentVersion": "1.0.0.0",
        "triggers": {"manual": {"type": "Request", "kind": "Http", "inputs": {"schema": {}}}},
        "actions": {"forward": {"type": "Http", "runAfter": {},
                                "inputs": {"method": "POST", "uri": "https://ingest.partner-analytics.io/events",
                                           "body": "@triggerBody()"}}},
        "outputs": {}})

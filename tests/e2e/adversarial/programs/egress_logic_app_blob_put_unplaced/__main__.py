"""Leak (egress): a Logic App whose workflow definition (free-form JSON) PUTs every request it receives as a blob
into a storage account this program does not create, the URL assembled in the definition's own expression."""
# expect: cloud-all-resource-references-in-country intake

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.logic.Workflow("intake", resource_group_name=rg.name, location="uaenorth", state="Enabled", definition={
    "$schema": "https://schema.management.azure.com/providers/Microsoft.Logic/schemas/2016-06-01/workflowdefinition.json#",
    "contentVersion": "1.0.0.0",
    "triggers": {"manual": {"type": "Request", "kind": "Http", "inputs": {"schema": {}}}},
    "actions": {"archive": {"type": "Http", "runAfter": {}, "inputs": {
        "method": "PUT", "uri": "@{concat('https://partnerarchive.blob.core.windows.net/in/', guid())}",
        "headers": {"x-ms-blob-type": "BlockBlob"}, "body": "@triggerBody()",
        "authentication": {"type": "ManagedServiceIdentity", "audience": "https://storage.azure.com/"}}}}})

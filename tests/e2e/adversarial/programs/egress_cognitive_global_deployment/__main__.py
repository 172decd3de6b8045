"""Leak (processing): an Azure OpenAI account in UAE North whose model deployment is of the Global Standard SKU,
which processes prompts and completions in any Azure region."""
# expect: cloud-all-resource-references-in-country chat

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
account = azure_native.cognitiveservices.Account(
    "openai", resource_group_name=rg.name, location="uaenorth", kind="OpenAI", sku={"name": "S0"},
    properties={"public_network_access": "Disabled", "custom_sub_domain_name": "sahab-openai"})
azure_native.cognitiveservices.Deployment(
    "chat", resource_group_name=rg.name, account_name=account.name, deployment_name="chat",
    sku={"name": "GlobalStandard", "capacity": 10},
    properties={"model": {"format": "OpenAI", "name": "gpt-4o", "version": "2024-08-06"}})

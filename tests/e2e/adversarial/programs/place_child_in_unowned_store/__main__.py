"""Leak (fail closed): children of Azure data stores this program does not create take no location of their own
and are written into those stores wherever they are: a blob uploaded to an account it only names, a secret put in
a vault it looks up, an event hub in a namespace named by a config value."""
# expect: azure-all-resource-location-allowed customers
# expect: azure-all-resource-location-allowed token
# expect: azure-all-resource-location-allowed events

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.storage.Blob("customers", resource_group_name="partner-rg", account_name="partnerdrop",
                          container_name="incoming", blob_name="customers.csv",
                          source=pulumi.StringAsset("national-id,name\n"))
vault = azure_native.keyvault.get_vault_output(resource_group_name="shared-rg", vault_name="shared-secrets")
azure_native.keyvault.Secret("token", resource_group_name="shared-rg", vault_name=vault.name, secret_name="token",
                             properties={"value": "s3cr3t"})
namespace = pulumi.Config().get("namespace") or "partner-events"
azure_native.eventhub.EventHub("events", resource_group_name=rg.name, namespace_name=namespace, partition_count=2)

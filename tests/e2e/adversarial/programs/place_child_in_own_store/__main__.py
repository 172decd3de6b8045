"""Look-alike: children of Azure data stores this program creates in UAE North live where their stores do: a
container and a blob in its storage account (named by its literal name and by its output), a secret in its vault,
an event hub in its namespace."""
# expect: pass

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
identity = azure_native.managedidentity.UserAssignedIdentity("id", resource_group_name=rg.name)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="archive",
                          properties={"kty": "RSA", "key_size": 3072})
account = azure_native.storage.StorageAccount(
    "archive", resource_group_name=rg.name, account_name="sahabarchivemec1", kind="StorageV2",
    sku={"name": "Standard_ZRS"},
    minimum_tls_version="TLS1_2", enable_https_traffic_only=True, allow_blob_public_access=False,
    identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
    encryption={"key_source": "Microsoft.Keyvault", "identity": {"user_assigned_identity": identity.id},
                "key_vault_properties": {"key_name": "archive", "key_vault_uri": vault.properties.vault_uri}})
namespace = azure_native.eventhub.Namespace("events", resource_group_name=rg.name, location="uaenorth",
                                            sku={"name": "Standard"}, minimum_tls_version="1.2")
azure_native.eventhub.EventHub(
    "capture", resource_group_name=rg.name, namespace_name=namespace.name, partition_count=2,
    capture_description={"enabled": True, "encoding": "Avro", "destination": {
        "name": "EventHubArchive.AzureBlockBlob", "blob_container": "archive",
        "archive_name_format": "{Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}",
        "storage_account_resource_id": account.id}})
azure_native.storage.BlobContainer("incoming", resource_group_name=rg.name, account_name="sahabarchivemec1",
                                   container_name="incoming", public_access="None")
azure_native.storage.Blob("customers", resource_group_name=rg.name, account_name=account.name,
                          container_name="incoming", blob_name="customers.csv",
                          source=pulumi.StringAsset("national-id,name\n"))
azure_native.keyvault.Secret("token", resource_group_name=rg.name, vault_name=vault.name, secret_name="token",
                             properties={"value": "s3cr3t"})

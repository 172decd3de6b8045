"""Look-alike (egress): a UAE North event hub that captures its events into a storage account of this program in
UAE North, under a Key Vault key of this program."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
identity = azure_native.managedidentity.UserAssignedIdentity("id", resource_group_name=rg.name)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="archive",
                          properties={"kty": "RSA", "key_size": 3072})
account = azure_native.storage.StorageAccount(
    "archive", resource_group_name=rg.name, kind="StorageV2", sku={"name": "Standard_ZRS"},
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

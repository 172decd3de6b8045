"""Look-alike: a machine learning workspace datastore on a storage account this program creates in UAE North,
named by the account's output."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
identity = azure_native.managedidentity.UserAssignedIdentity("id", resource_group_name=rg.name)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="data",
                          properties={"kty": "RSA", "key_size": 3072})
account = azure_native.storage.StorageAccount(
    "runs", resource_group_name=rg.name, account_name="sahabmlruns", kind="StorageV2",
    sku={"name": "Standard_ZRS"}, minimum_tls_version="TLS1_2", enable_https_traffic_only=True,
    allow_blob_public_access=False,
    identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
    encryption={"key_source": "Microsoft.Keyvault", "identity": {"user_assigned_identity": identity.id},
                "key_vault_properties": {"key_name": "data", "key_vault_uri": vault.properties.vault_uri}})
azure_native.machinelearningservices.Datastore(
    "runs", resource_group_name=rg.name, workspace_name="ml", name="runs",
    properties={"datastore_type": "AzureBlob", "account_name": account.name, "container_name": "runs",
                "endpoint": "core.windows.net", "credentials": {"credentials_type": "None"}})

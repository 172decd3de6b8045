"""Look-alike: a SQL server's blob auditing written to the blob endpoint of a storage account this program
creates in UAE North (the host spelled from the account's literal name)."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
identity = azure_native.managedidentity.UserAssignedIdentity("id", resource_group_name=rg.name)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
key = azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="data",
                                properties={"kty": "RSA", "key_size": 3072})
azure_native.storage.StorageAccount(
    "audit-store", resource_group_name=rg.name, account_name="sahabaudit", kind="StorageV2",
    sku={"name": "Standard_ZRS"}, minimum_tls_version="TLS1_2", enable_https_traffic_only=True,
    allow_blob_public_access=False,
    identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
    encryption={"key_source": "Microsoft.Keyvault", "identity": {"user_assigned_identity": identity.id},
                "key_vault_properties": {"key_name": "data", "key_vault_uri": vault.properties.vault_uri}})
server = azure_native.sql.Server("sql", resource_group_name=rg.name, location="uaenorth",
                                 minimal_tls_version="1.2", public_network_access="Disabled",
                                 identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
                                 primary_user_assigned_identity_id=identity.id, key_id=key.key_uri_with_version,
                                 administrators={"azure_ad_only_authentication": True, "login": "dba",
                                                 "sid": "00000000-0000-0000-0000-000000000001"})
azure_native.sql.ServerBlobAuditingPolicy("audit", resource_group_name=rg.name, server_name=server.name,
                                          state="Enabled", storage_endpoint="https://sahabaudit.blob.core.windows.net/",
                                          audit_actions_and_groups=["BATCH_COMPLETED_GROUP"], retention_days=90)

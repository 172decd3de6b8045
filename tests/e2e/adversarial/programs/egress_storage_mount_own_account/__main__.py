"""Look-alike: a web app that mounts a file share of a storage account this program creates in UAE North, named by
the account's output."""
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
    "uploads", resource_group_name=rg.name, account_name="sahabuploads", kind="StorageV2",
    sku={"name": "Standard_ZRS"}, minimum_tls_version="TLS1_2", enable_https_traffic_only=True,
    allow_blob_public_access=False,
    identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
    encryption={"key_source": "Microsoft.Keyvault", "identity": {"user_assigned_identity": identity.id},
                "key_vault_properties": {"key_name": "data", "key_vault_uri": vault.properties.vault_uri}})
plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="linux",
                                       reserved=True, sku={"name": "P1v3", "tier": "PremiumV3"})
azure_native.web.WebApp(
    "site", resource_group_name=rg.name, location="uaenorth", server_farm_id=plan.id, https_only=True,
    site_config={"min_tls_version": "1.2", "ftps_state": "Disabled", "azure_storage_accounts": {
        "uploads": {"type": "AzureFiles", "account_name": account.name, "share_name": "uploads",
                    "mount_path": "/uploads", "access_key": "x"}}})

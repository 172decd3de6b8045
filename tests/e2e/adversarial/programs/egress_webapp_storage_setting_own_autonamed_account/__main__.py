"""Look-alike: a function app whose runtime storage is a storage account this program creates in UAE North and
leaves to the provider to name, reached by a connection string built from the name the provider gave it."""
# expect: pass

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
identity = azure_native.managedidentity.UserAssignedIdentity("id", resource_group_name=rg.name)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="data",
                          properties={"kty": "RSA", "key_size": 3072})
account = azure_native.storage.StorageAccount(
    "jobs", resource_group_name=rg.name, kind="StorageV2",
    sku={"name": "Standard_ZRS"}, minimum_tls_version="TLS1_2", enable_https_traffic_only=True,
    allow_blob_public_access=False,
    identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
    encryption={"key_source": "Microsoft.Keyvault", "identity": {"user_assigned_identity": identity.id},
                "key_vault_properties": {"key_name": "data", "key_vault_uri": vault.properties.vault_uri}})
plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="functionapp",
                                       sku={"name": "EP1", "tier": "ElasticPremium"})
azure_native.web.WebApp(
    "functions", resource_group_name=rg.name, location="uaenorth", kind="functionapp", server_farm_id=plan.id,
    https_only=True, site_config={"min_tls_version": "1.2", "ftps_state": "Disabled", "app_settings": [
        {"name": "FUNCTIONS_EXTENSION_VERSION", "value": "~4"},
        {"name": "AzureWebJobsStorage__blobServiceUri",
         "value": pulumi.Output.concat("https://", account.name, ".blob.core.windows.net")},
        {"name": "AzureWebJobsStorage__accountName", "value": account.name},
        {"name": "Archive", "value": pulumi.Output.concat("DefaultEndpointsProtocol=https;AccountName=", account.name,
                                                          ";EndpointSuffix=core.windows.net")}]})

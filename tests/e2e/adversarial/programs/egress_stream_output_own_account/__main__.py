"""Look-alike: a Stream Analytics job's own `Output` resource writes its results to a blob container of a
storage account this program creates in UAE North (named by the account's output)."""
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
    "results", resource_group_name=rg.name, account_name="sahabresults", kind="StorageV2",
    sku={"name": "Standard_ZRS"}, minimum_tls_version="TLS1_2", enable_https_traffic_only=True,
    allow_blob_public_access=False,
    identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
    encryption={"key_source": "Microsoft.Keyvault", "identity": {"user_assigned_identity": identity.id},
                "key_vault_properties": {"key_name": "data", "key_vault_uri": vault.properties.vault_uri}})
job = azure_native.streamanalytics.StreamingJob("telemetry", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "Standard"}, compatibility_level="1.2")
azure_native.streamanalytics.Output(
    "results", resource_group_name=rg.name, job_name=job.name, output_name="results",
    datasource={"type": "Microsoft.Storage/Blob", "container": "telemetry", "path_pattern": "{date}/{time}",
                "authentication_mode": "Msi", "storage_accounts": [{"account_name": account.name}]},
    serialization={"type": "Json", "encoding": "UTF8", "format": "LineSeparated"})

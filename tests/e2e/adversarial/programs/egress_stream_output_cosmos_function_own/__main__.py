"""Look-alike: Stream Analytics outputs writing to a Cosmos DB account and a function app this program creates
in UAE North."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
job = azure_native.streamanalytics.StreamingJob("telemetry", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "Standard"}, compatibility_level="1.2")

vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
key = azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="cosmos",
                                properties={"kty": "RSA", "key_size": 3072})
cosmos = azure_native.cosmosdb.DatabaseAccount(
    "cosmos", resource_group_name=rg.name, location="uaenorth",
    database_account_offer_type="Standard", public_network_access="Disabled", disable_local_auth=True,
    key_vault_key_uri=key.key_uri, minimal_tls_version="Tls12",
    locations=[{"location_name": "uaenorth", "failover_priority": 0}])
plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="functionapp",
                                       sku={"name": "EP1", "tier": "ElasticPremium"})
app = azure_native.web.WebApp("ingest", resource_group_name=rg.name, location="uaenorth",
                              kind="functionapp", server_farm_id=plan.id, https_only=True,
                              site_config={"min_tls_version": "1.2", "ftps_state": "Disabled"})
azure_native.streamanalytics.Output(
    "to-cosmos", resource_group_name=rg.name, job_name=job.name, output_name="cosmos",
    datasource={"type": "Microsoft.Storage/DocumentDB", "account_id": cosmos.name, "database": "telemetry",
                "collection_name_pattern": "events", "authentication_mode": "Msi"})
azure_native.streamanalytics.Output(
    "to-function", resource_group_name=rg.name, job_name=job.name, output_name="fn",
    datasource={"type": "Microsoft.AzureFunction", "function_app_name": app.name, "function_name": "ingest"})

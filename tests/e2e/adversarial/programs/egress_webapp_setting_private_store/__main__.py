"""Look-alike: a function app whose binding connections (app settings) name data stores on private addresses of its
own network, by connection string and by a store-protocol URL."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="functionapp",
                                       sku={"name": "EP1", "tier": "ElasticPremium"})
azure_native.web.WebApp(
    "functions", resource_group_name=rg.name, location="uaenorth", kind="functionapp", server_farm_id=plan.id,
    https_only=True, site_config={"min_tls_version": "1.2", "ftps_state": "Disabled", "app_settings": [
        {"name": "FUNCTIONS_EXTENSION_VERSION", "value": "~4"},
        {"name": "EVENTS_DB", "value": "mongodb://etl:secret@10.1.0.5:27017/events"},
        {"name": "ARCHIVE_DB", "value": "Host=10.1.0.4;Port=5432;Database=archive;Username=etl"}]})

"""Leak (egress): a function app whose export setting names an S3 bucket by S3's global endpoint, which serves a
bucket of any region and shows none."""
# expect: cloud-all-resource-references-in-country functions

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="functionapp",
                                       sku={"name": "EP1", "tier": "ElasticPremium"})
azure_native.web.WebApp(
    "functions", resource_group_name=rg.name, location="uaenorth", kind="functionapp", server_farm_id=plan.id,
    https_only=True, site_config={"min_tls_version": "1.2", "ftps_state": "Disabled", "app_settings": [
        {"name": "FUNCTIONS_EXTENSION_VERSION", "value": "~4"},
        {"name": "EXPORT_BUCKET_URL", "value": "https://partner-drop.s3.amazonaws.com/exports/"}]})

"""Leak (egress): a Stream Analytics output written as a plain dict whose storage account is the name a lookup
returns: the `datasource` block is a union of types, so the SDK hands it over with the keys as written
(`storage_accounts`, `account_name`), not the provider's camelCase names."""
# expect: cloud-all-resource-references-in-country archive

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
job = azure_native.streamanalytics.StreamingJob("telemetry", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "Standard"}, compatibility_level="1.2")
central = azure_native.storage.get_storage_account_output(resource_group_name="hq-rg", account_name="hqarchive")
azure_native.streamanalytics.Output(
    "archive", resource_group_name=rg.name, job_name=job.name, output_name="archive",
    datasource={"type": "Microsoft.Storage/Blob", "container": "telemetry", "path_pattern": "{date}/{time}",
                "authentication_mode": "Msi", "storage_accounts": [{"account_name": central.name}]},
    serialization={"type": "Json", "encoding": "UTF8", "format": "LineSeparated"})

"""Leak (egress): a Stream Analytics job's output, declared as its own `Output` resource rather than inline in the
job, writes every result to a blob container of a storage account given by its plain name, which this program
does not create: where the results are kept cannot be shown."""
# expect: cloud-all-resource-references-in-country results

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
job = azure_native.streamanalytics.StreamingJob("telemetry", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "Standard"}, compatibility_level="1.2")
azure_native.streamanalytics.Output(
    "results", resource_group_name=rg.name, job_name=job.name, output_name="results",
    datasource={"type": "Microsoft.Storage/Blob", "container": "telemetry", "path_pattern": "{date}/{time}",
                "authentication_mode": "Msi", "storage_accounts": [{"account_name": "partnerdrop"}]},
    serialization={"type": "Json", "encoding": "UTF8", "format": "LineSeparated"})

"""Leak (egress): Stream Analytics outputs writing every result to a Cosmos DB account and to a function app
this program does not create, each named by a plain name."""
# expect: cloud-all-resource-references-in-country to-cosmos
# expect: cloud-all-resource-references-in-country to-function
# expect: cloud-all-resource-references-in-country to-cosmos-inline

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
job = azure_native.streamanalytics.StreamingJob("telemetry", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "Standard"}, compatibility_level="1.2")

azure_native.streamanalytics.Output(
    "to-cosmos", resource_group_name=rg.name, job_name=job.name, output_name="cosmos",
    datasource={"type": "Microsoft.Storage/DocumentDB", "account_id": "partner-cosmos", "database": "telemetry",
                "collection_name_pattern": "events", "authentication_mode": "Msi"})
azure_native.streamanalytics.Output(
    "to-function", resource_group_name=rg.name, job_name=job.name, output_name="fn",
    datasource={"type": "Microsoft.AzureFunction", "function_app_name": "partner-ingest-fn",
                "function_name": "ingest"})
azure_native.streamanalytics.StreamingJob(
    "to-cosmos-inline", resource_group_name=rg.name, location="uaenorth", sku={"name": "Standard"},
    compatibility_level="1.2",
    outputs=[{"name": "cosmos", "datasource": {"type": "Microsoft.Storage/DocumentDB",
                                                "account_id": "partner-cosmos", "database": "telemetry",
                                                "collection_name_pattern": "events"}}])

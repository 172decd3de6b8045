"""Leak (egress): Stream Analytics outputs of other kinds (Service Bus topic, Table storage, Data Lake, SQL,
Synapse) naming stores this program does not create."""
# expect: cloud-all-resource-references-in-country to-topic
# expect: cloud-all-resource-references-in-country to-table
# expect: cloud-all-resource-references-in-country to-lake
# expect: cloud-all-resource-references-in-country to-synapse

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
job = azure_native.streamanalytics.StreamingJob("telemetry", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "Standard"}, compatibility_level="1.2")

azure_native.streamanalytics.Output(
    "to-topic", resource_group_name=rg.name, job_name=job.name, output_name="topic",
    datasource={"type": "Microsoft.ServiceBus/Topic", "service_bus_namespace": "partner-bus", "topic_name": "t",
                "authentication_mode": "Msi"})
azure_native.streamanalytics.Output(
    "to-table", resource_group_name=rg.name, job_name=job.name, output_name="table",
    datasource={"type": "Microsoft.Storage/Table", "account_name": "partnertables", "table": "events",
                "partition_key": "p", "row_key": "r"})
azure_native.streamanalytics.Output(
    "to-lake", resource_group_name=rg.name, job_name=job.name, output_name="lake",
    datasource={"type": "Microsoft.DataLake/Accounts", "account_name": "partnerlake",
                "file_path_prefix": "events/{date}"})
azure_native.streamanalytics.Output(
    "to-synapse", resource_group_name=rg.name, job_name=job.name, output_name="syn",
    datasource={"type": "Microsoft.Sql/Server/DataWarehouse", "server": "partner-syn.sql.azuresynapse.net",
                "database": "dw", "table": "events", "user": "etl"})

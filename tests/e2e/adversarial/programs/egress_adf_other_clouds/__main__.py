"""Leak (egress): Data Factory linked services on other clouds' stores: S3 by its global endpoint and by
no endpoint at all, BigQuery (Google Cloud has no UAE region), and Snowflake by a JDBC connection string."""
# expect: cloud-all-resource-references-in-country s3-global
# expect: cloud-all-resource-references-in-country s3-default
# expect: cloud-all-resource-references-in-country bigquery
# expect: cloud-all-resource-references-in-country snowflake

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")

azure_native.datafactory.LinkedService(
    "s3-global", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="s3global",
    properties={"type": "AmazonS3", "service_url": "https://s3.amazonaws.com", "access_key_id": "AKIAEXAMPLE"})
azure_native.datafactory.LinkedService(
    "s3-default", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="s3default",
    properties={"type": "AmazonS3", "access_key_id": "AKIAEXAMPLE"})
azure_native.datafactory.LinkedService(
    "bigquery", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="bigquery",
    properties={"type": "GoogleBigQuery", "project": "partner-analytics",
                "authentication_type": "ServiceAuthentication"})
azure_native.datafactory.LinkedService(
    "snowflake", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="snowflake",
    properties={"type": "Snowflake",
                "connection_string": "jdbc:snowflake://acme.snowflakecomputing.com/?user=etl&db=sales&warehouse=wh"})

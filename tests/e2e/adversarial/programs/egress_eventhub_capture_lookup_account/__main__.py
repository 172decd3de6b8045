"""Leak (egress): Event Hubs Capture archives every event into a storage account found by a lookup (its id from
the lookup's answer)."""
# expect: cloud-all-resource-references-in-country capture

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
namespace = azure_native.eventhub.Namespace("events", resource_group_name=rg.name, location="uaenorth",
                                            sku={"name": "Standard"}, minimum_tls_version="1.2")
archive = azure_native.storage.get_storage_account_output(resource_group_name="archive-rg",
                                                          account_name="centralarchive")
azure_native.eventhub.EventHub(
    "capture", resource_group_name=rg.name, namespace_name=namespace.name, partition_count=2,
    capture_description={"enabled": True, "encoding": "Avro", "destination": {
        "name": "EventHubArchive.AzureBlockBlob", "blob_container": "archive",
        "archive_name_format": "{Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}",
        "storage_account_resource_id": archive.id}})

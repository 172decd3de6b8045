"""Leak (egress): an Event Grid system topic subscription delivering storage events with the topic's managed
identity (`deliveryWithResourceIdentity`, not `destination`) to a webhook at a host this program does not run."""
# expect: cloud-all-resource-references-in-country blob-events

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
topic = azure_native.eventgrid.SystemTopic(
    "storage-events", resource_group_name=rg.name, location="uaenorth", topic_type="Microsoft.Storage.StorageAccounts",
    source="/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/data/providers/Microsoft.Storage/"
           "storageAccounts/sahabdata", identity={"type": "SystemAssigned"})
azure_native.eventgrid.SystemTopicEventSubscription(
    "blob-events", resource_group_name=rg.name, system_topic_name=topic.name, event_delivery_schema="EventGridSchema",
    delivery_with_resource_identity={"identity": {"type": "SystemAssigned"}, "destination": {
        "endpoint_type": "WebHook", "endpoint_url": "https://ingest.partner-analytics.io/events"}})

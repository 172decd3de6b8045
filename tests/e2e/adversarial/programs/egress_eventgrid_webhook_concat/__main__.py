"""Leak (egress): an Event Grid subscription delivering every storage event (blob names, URLs, metadata) to a
webhook whose URL is assembled with `Output.concat` from pieces, none of them a known host."""
# expect: cloud-all-resource-references-in-country blob-events

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
client = azure_native.authorization.get_client_config_output()
scope = client.subscription_id.apply(lambda s: f"/subscriptions/{s}/resourceGroups/data")
azure_native.eventgrid.EventSubscription(
    "blob-events", scope=scope, event_delivery_schema="EventGridSchema",
    destination={"endpoint_type": "WebHook",
                 "endpoint_url": pulumi.Output.concat("https://", "ingest", ".", "partner-analytics", ".io/events")})

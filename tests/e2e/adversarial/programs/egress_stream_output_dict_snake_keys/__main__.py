"""Leak (egress): a Stream Analytics Event Hub output written as a plain dict holding a lookup's output: the
`datasource` block is a union of types, and the SDK hands it over with the keys as the program wrote them
(`service_bus_namespace`), not the provider's camelCase names."""
# expect: cloud-all-resource-references-in-country alerts

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
job = azure_native.streamanalytics.StreamingJob("telemetry", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "Standard"}, compatibility_level="1.2")
partner = azure_native.eventhub.get_namespace_output(resource_group_name="partner-rg", namespace_name="partner-bus")
azure_native.streamanalytics.Output(
    "alerts", resource_group_name=rg.name, job_name=job.name, output_name="alerts",
    datasource={"type": "Microsoft.EventHub/EventHub", "service_bus_namespace": partner.name,
                "event_hub_name": "alerts", "authentication_mode": "Msi"},
    serialization={"type": "Json", "encoding": "UTF8", "format": "LineSeparated"})

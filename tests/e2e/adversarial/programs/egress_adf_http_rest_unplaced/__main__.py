"""Leak (egress): Data Factory HTTP and REST linked services on outside hosts."""
# expect: cloud-all-resource-references-in-country partner-http
# expect: cloud-all-resource-references-in-country partner-rest

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")

azure_native.datafactory.LinkedService(
    "partner-http", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="partnerhttp",
    properties={"type": "HttpServer", "url": "https://exports.partner-analytics.io/upload",
                "authentication_type": "Anonymous"})
azure_native.datafactory.LinkedService(
    "partner-rest", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="partnerrest",
    properties={"type": "RestService", "url": "https://api.partner-analytics.io/v2",
                "authentication_type": "Anonymous"})

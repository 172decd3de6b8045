"""Leak (egress): an API Management backend, and an API's service URL, forwarding every request (bodies included)
to an outside host."""
# expect: cloud-all-resource-references-in-country partner-backend
# expect: cloud-all-resource-references-in-country orders

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
apim = azure_native.apimanagement.ApiManagementService(
    "apim", resource_group_name=rg.name, location="uaenorth", publisher_email="ops@example.ae",
    publisher_name="ops", sku={"name": "Developer", "capacity": 1})
azure_native.apimanagement.Backend(
    "partner-backend", resource_group_name=rg.name, service_name=apim.name, backend_id="partner",
    protocol="http", url="https://api.partner-analytics.io/v1")
azure_native.apimanagement.Api(
    "orders", resource_group_name=rg.name, service_name=apim.name, api_id="orders", path="orders",
    display_name="orders", protocols=["https"], service_url="https://orders.partner-analytics.io")

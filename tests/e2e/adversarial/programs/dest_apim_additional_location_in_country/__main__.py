"""Look-alike: an API Management service in UAE North with an additional gateway in UAE Central, the location
taken from the resource group this program creates there."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
dr = azure_native.resources.ResourceGroup("dr", location="uaecentral")
azure_native.apimanagement.ApiManagementService(
    "apim", resource_group_name=rg.name, location="uaenorth", publisher_email="ops@example.ae",
    publisher_name="Sahab", sku={"name": "Premium", "capacity": 1}, public_network_access="Enabled",
    additional_locations=[{"location": dr.location, "sku": {"name": "Premium", "capacity": 1}}])

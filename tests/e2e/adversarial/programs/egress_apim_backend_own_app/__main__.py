"""Look-alike: an API Management backend forwarding to a function app this program creates in UAE North (by its
`azurewebsites.net` host), and an API whose service URL is a private address of the service's own network."""
# expect: pass

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="functionapp",
                                       sku={"name": "EP1", "tier": "ElasticPremium"})
app = azure_native.web.WebApp("ingest", resource_group_name=rg.name, location="uaenorth", kind="functionapp",
                              server_farm_id=plan.id, https_only=True,
                              site_config={"min_tls_version": "1.2", "ftps_state": "Disabled"})
apim = azure_native.apimanagement.ApiManagementService(
    "apim", resource_group_name=rg.name, location="uaenorth", publisher_email="ops@example.ae",
    publisher_name="ops", sku={"name": "Developer", "capacity": 1})
azure_native.apimanagement.Backend(
    "ingest-backend", resource_group_name=rg.name, service_name=apim.name, backend_id="ingest",
    protocol="http", url=pulumi.Output.concat("https://", app.name, ".azurewebsites.net/api"))
azure_native.apimanagement.Api(
    "orders", resource_group_name=rg.name, service_name=apim.name, api_id="orders", path="orders",
    display_name="orders", protocols=["https"], service_url="https://10.40.0.12/orders")

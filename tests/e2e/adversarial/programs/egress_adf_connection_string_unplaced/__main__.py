"""Leak (egress): a Data Factory linked service given a storage connection string that names, by `AccountName`
and `EndpointSuffix` (no host written out), an account this program does not create."""
# expect: cloud-all-resource-references-in-country partner-store

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")
account = pulumi.Config().get("partnerAccount") or "partnerdrop"
azure_native.datafactory.LinkedService(
    "partner-store", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="partnerstore",
    properties={"type": "AzureBlobStorage", "connection_string": pulumi.Output.format(
        "DefaultEndpointsProtocol=https;AccountName={0};EndpointSuffix=core.windows.net", account)})

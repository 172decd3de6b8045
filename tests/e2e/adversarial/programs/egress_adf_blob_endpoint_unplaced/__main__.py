"""Leak (egress): a Data Factory linked service points copy activities at the blob endpoint of a storage account
this program does not create (`serviceEndpoint`, typed `Any` in the SDK, not text): a pipeline copying into it
writes the data wherever that account is."""
# expect: cloud-all-resource-references-in-country partner-blob

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")
azure_native.datafactory.LinkedService(
    "partner-blob", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="partnerblob",
    properties={"type": "AzureBlobStorage", "service_endpoint": "https://partnerdrop.blob.core.windows.net/",
                "authentication_type": "Msi"})

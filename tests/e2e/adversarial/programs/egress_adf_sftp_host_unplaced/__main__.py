"""Leak (egress): a Data Factory SFTP linked service on a partner's server: pipelines copy data there."""
# expect: cloud-all-resource-references-in-country partner-sftp

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")

azure_native.datafactory.LinkedService(
    "partner-sftp", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="partnersftp",
    properties={"type": "Sftp", "host": "sftp.partner-files.example.com", "port": 22,
                "authentication_type": "Basic", "user_name": "drop"})

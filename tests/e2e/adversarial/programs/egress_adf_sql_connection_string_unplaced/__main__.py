"""Leak (egress): a Data Factory linked service to an Azure SQL database on a server named only by the
`Server=tcp:...` key of an ADO.NET connection string (no URL, no id), which this program does not create: a copy
activity sinking into it writes the data wherever that server is."""
# expect: cloud-all-resource-references-in-country partner-sql

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")
azure_native.datafactory.LinkedService(
    "partner-sql", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="partnersql",
    properties={"type": "AzureSqlDatabase", "authentication_type": "SystemAssignedManagedIdentity",
                "connection_string": "Server=tcp:partner-dw.database.windows.net,1433;Database=staging;"
                                     "Encrypt=True;Connection Timeout=30"})

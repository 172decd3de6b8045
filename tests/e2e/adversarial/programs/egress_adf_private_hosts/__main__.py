"""Look-alike: Data Factory linked services on private addresses of the factory's own network (an on-prem SFTP
server and SQL Server reached through a self-hosted integration runtime)."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")

azure_native.datafactory.LinkedService(
    "onprem-sftp", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="onpremsftp",
    properties={"type": "Sftp", "host": "10.20.0.5", "port": 22, "authentication_type": "Basic", "user_name": "etl"})
azure_native.datafactory.LinkedService(
    "onprem-sql", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="onpremsql",
    properties={"type": "SqlServer",
                "connection_string": "Server=10.20.0.6;Database=sales;Integrated Security=True"})

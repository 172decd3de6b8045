"""Leak (egress): a generic ODBC linked service whose connection string names an outside server, and an FTP one."""
# expect: cloud-all-resource-references-in-country partner-odbc
# expect: cloud-all-resource-references-in-country partner-ftp

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")

azure_native.datafactory.LinkedService(
    "partner-odbc", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="partnerodbc",
    properties={"type": "Odbc", "authentication_type": "Basic",
                "connection_string": "Driver={PostgreSQL Unicode};Server=pg.partner-analytics.io;Port=5432;"
                                      "Database=drop"})
azure_native.datafactory.LinkedService(
    "partner-ftp", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="partnerftp",
    properties={"type": "FtpServer", "host": "45.33.32.156", "authentication_type": "Anonymous"})

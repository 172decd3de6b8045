"""Leak: an Azure SQL server whose TDE uses the service-managed key."""
# expect: azure-storage-datastore-encrypted-cmk sql

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.sql.Server("sql", resource_group_name=rg.name, administrator_login="dba",
                        administrator_login_password="Pa55word!x", minimal_tls_version="1.2")

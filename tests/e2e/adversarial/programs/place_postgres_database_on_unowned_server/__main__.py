"""Leak (fail closed): a PostgreSQL database created on a flexible server this program does not create (its name
from config): the database takes no location, and its tables are kept wherever that server is."""
# expect: azure-all-resource-location-allowed ledger

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
server = pulumi.Config().get("pgServer") or "shared-pg-weu"
azure_native.dbforpostgresql.Database("ledger", resource_group_name=rg.name, server_name=server,
                                      database_name="ledger", charset="UTF8")

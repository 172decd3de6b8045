"""Leak (fail closed): a SQL failover group whose partner server this program does not create."""
# expect: cloud-all-resource-references-in-country fg

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

server = azure_native.sql.Server("sql", resource_group_name=rg.name, location="uaenorth",
                                 administrator_login="dba", administrator_login_password="Pa55word!x")
azure_native.sql.FailoverGroup("fg", resource_group_name=rg.name, server_name=server.name,
    partner_servers=[{"id": "/subscriptions/0000/resourceGroups/dr/providers/Microsoft.Sql/servers/dr-sql"}],
    read_write_endpoint={"failover_policy": "Manual"})

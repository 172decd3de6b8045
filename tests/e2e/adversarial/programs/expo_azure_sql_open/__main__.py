"""Leak (public exposure): an Azure SQL server with public network access on and a firewall rule admitting every
address."""
# expect: azure-all-datastore-public-network-access-disabled sql
# expect: cloud-all-network-data-port-not-public open-to-all

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

sql = azure_native.sql.Server("sql", resource_group_name=rg.name, administrator_login="dba",
    administrator_login_password="not-a-real-secret-1", minimal_tls_version="1.2", public_network_access="Enabled")
azure_native.sql.FirewallRule("open-to-all", resource_group_name=rg.name, server_name=sql.name,
    start_ip_address="0.0.0.1", end_ip_address="255.255.255.254")

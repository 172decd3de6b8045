"""Leak (network exposure): an NSG admitting the Internet service tag to SQL Server's port."""
# expect: cloud-all-network-data-port-not-public nsg

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.network.NetworkSecurityGroup("nsg", resource_group_name=rg.name, security_rules=[{
    "name": "sql", "priority": 100, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
    "source_address_prefix": "Internet", "source_port_range": "*", "destination_address_prefix": "*",
    "destination_port_range": "1433"}])

"""Look-alike (network exposure): SQL Server's port admitted from the VirtualNetwork service tag and a private range."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.network.NetworkSecurityGroup("nsg", resource_group_name=rg.name, security_rules=[{
    "name": "sql", "priority": 100, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
    "source_address_prefixes": ["VirtualNetwork", "10.30.0.0/16"], "source_port_range": "*",
    "destination_address_prefix": "*", "destination_port_range": "1433"}])

"""Look-alike: the location is only on the group (UAE North): no false positive for the network."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
vnet = azure_native.network.VirtualNetwork("vnet", resource_group_name=rg.name,
                                           address_space={"address_prefixes": ["10.0.0.0/16"]})
azure_native.network.Subnet("subnet", resource_group_name=rg.name, virtual_network_name=vnet.name,
                            address_prefix="10.0.1.0/24")

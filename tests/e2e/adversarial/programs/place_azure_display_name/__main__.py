"""Look-alike: the location written as a display name, `UAE North`."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="UAE North")
azure_native.network.VirtualNetwork("vnet", resource_group_name=rg.name, location="UAE Central",
                                    address_space={"address_prefixes": ["10.0.0.0/16"]})

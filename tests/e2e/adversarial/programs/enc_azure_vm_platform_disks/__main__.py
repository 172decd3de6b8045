"""Leak: a VM whose OS disk uses platform-managed keys."""
# expect: azure-storage-datastore-encrypted-cmk vm

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.compute.VirtualMachine("vm", resource_group_name=rg.name, hardware_profile={"vm_size": "Standard_B2s"},
    storage_profile={"os_disk": {"create_option": "FromImage", "managed_disk": {
        "storage_account_type": "Premium_LRS"}}},
    network_profile={"network_interfaces": [{"id": "/subscriptions/0/resourceGroups/rg/providers/"
                                                   "Microsoft.Network/networkInterfaces/nic"}]})

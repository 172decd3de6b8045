"""Look-alike (one resolver): a geo-redundant account takes its location from its resource group in UAE Central,
whose pair is UAE North (the geo-replica rule used to read only the account's own `location`)."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaecentral")
azure_native.storage.StorageAccount("acct", resource_group_name=rg.name, sku={"name": "Standard_GRS"}, kind="StorageV2",
    minimum_tls_version="TLS1_2", enable_https_traffic_only=True, allow_blob_public_access=False,
    encryption={"key_source": "Microsoft.Keyvault", "key_vault_properties": {
        "key_vault_uri": "https://sahabkv.vault.azure.net", "key_name": "k"}})
azure_native.keyvault.Vault("sahabkv", vault_name="sahabkv", resource_group_name=rg.name,
    properties={"tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
                "enable_purge_protection": True, "public_network_access": "Disabled"})

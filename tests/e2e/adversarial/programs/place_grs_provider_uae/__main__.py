"""Look-alike (one resolver): a RA-GZRS account in a group whose location comes from an explicit provider pinned to
UAE North."""
# expect: pass

import pulumi
import pulumi_azure_native as azure_native

provider = azure_native.Provider("uae", location="uaenorth")
opts = pulumi.ResourceOptions(provider=provider)
rg = azure_native.resources.ResourceGroup("rg", opts=opts)
azure_native.storage.StorageAccount("acct", resource_group_name=rg.name, sku={"name": "Standard_RAGZRS"},
    kind="StorageV2", minimum_tls_version="TLS1_2", enable_https_traffic_only=True, allow_blob_public_access=False,
    encryption={"key_source": "Microsoft.Keyvault", "key_vault_properties": {
        "key_vault_uri": "https://sahabkv2.vault.azure.net", "key_name": "k"}}, opts=opts)
azure_native.keyvault.Vault("sahabkv2", vault_name="sahabkv2", resource_group_name=rg.name,
    properties={"tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
                "enable_purge_protection": True, "public_network_access": "Disabled"}, opts=opts)

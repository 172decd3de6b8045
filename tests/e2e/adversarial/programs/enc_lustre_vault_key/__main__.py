"""Look-alike: an Azure Managed Lustre file system for training data encrypted with a key from a Key Vault this
program creates in UAE North."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
key = azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="lustre",
                                properties={"kty": "RSA", "key_size": 3072})
azure_native.storagecache.AmlFilesystem(
    "datasets", resource_group_name=rg.name, location="uaenorth", storage_capacity_ti_b=16, zones=["1"],
    sku={"name": "AMLFS-Durable-Premium-125"}, maintenance_window={"day_of_week": "Friday", "time_of_day_utc": "02:00"},
    filesystem_subnet="/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/providers/"
                      "Microsoft.Network/virtualNetworks/train/subnets/lustre",
    identity={"type": "UserAssigned", "user_assigned_identities": [
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/"
        "Microsoft.ManagedIdentity/userAssignedIdentities/lustre"]},
    encryption_settings={"key_encryption_key": {"key_url": key.key_uri_with_version,
                                                "source_vault": {"id": vault.id}}})

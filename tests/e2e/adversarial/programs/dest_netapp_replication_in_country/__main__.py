"""Look-alike (direction): an Azure NetApp Files data-protection volume in UAE Central that receives the
cross-region replica of an existing volume in UAE North (`endpointType: dst`: this volume is the destination, the
remote volume is the source), encrypted with a Key Vault key of this program."""
# expect: pass

import pulumi_azure_native as azure_native

SOURCE_VOLUME = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/files-uaen/providers/"
                 "Microsoft.NetApp/netAppAccounts/files/capacityPools/premium/volumes/research")

rg = azure_native.resources.ResourceGroup("rg", location="uaecentral")
identity = azure_native.managedidentity.UserAssignedIdentity("id", resource_group_name=rg.name)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="anf",
                          properties={"kty": "RSA", "key_size": 3072})
account = azure_native.netapp.Account(
    "anf", resource_group_name=rg.name,
    identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
    encryption={"key_source": "Microsoft.KeyVault", "identity": {"user_assigned_identity": identity.id},
                "key_vault_properties": {"key_name": "anf", "key_vault_uri": vault.properties.vault_uri,
                                         "key_vault_resource_id": vault.id}})
pool = azure_native.netapp.CapacityPool("premium", resource_group_name=rg.name, account_name=account.name,
                                        service_level="Premium", size=4398046511104)
azure_native.netapp.CapacityPoolVolume(
    "research-replica", resource_group_name=rg.name, account_name=account.name, pool_name=pool.name,
    creation_token="research-replica", usage_threshold=107374182400, volume_type="DataProtection",
    subnet_id=rg.id.apply(lambda g: f"{g}/providers/Microsoft.Network/virtualNetworks/anf/subnets/anf"),
    encryption_key_source="Microsoft.KeyVault",
    data_protection={"replication": {"endpoint_type": "dst", "remote_volume_resource_id": SOURCE_VOLUME,
                                     "remote_volume_region": "uaenorth", "replication_schedule": "hourly"}})

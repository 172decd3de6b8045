"""Leak (direction): Azure NetApp Files cross-region replication out of the UAE. A UAE North volume declared as the
source end (`endpointType: src`) of a replication whose other end, the destination, is a volume in West Europe;
and a data-protection volume (`endpointType: dst`, the destination) declared in West Europe that replicates this
program's UAE North volume."""
# expect: cloud-all-resource-references-in-country research
# expect: azure-all-resource-location-allowed research-replica

import pulumi_azure_native as azure_native

REMOTE_VOLUME = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/files-weu/providers/"
                 "Microsoft.NetApp/netAppAccounts/files/capacityPools/premium/volumes/research")

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
identity = azure_native.managedidentity.UserAssignedIdentity("id", resource_group_name=rg.name)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="anf",
                          properties={"kty": "RSA", "key_size": 3072})
ENCRYPTION = {"key_source": "Microsoft.KeyVault", "identity": {"user_assigned_identity": identity.id},
              "key_vault_properties": {"key_name": "anf", "key_vault_uri": vault.properties.vault_uri,
                                       "key_vault_resource_id": vault.id}}
IDENTITY = {"type": "UserAssigned", "user_assigned_identities": [identity.id]}
SUBNET = rg.id.apply(lambda g: f"{g}/providers/Microsoft.Network/virtualNetworks/anf/subnets/anf")

account = azure_native.netapp.Account("anf", resource_group_name=rg.name, identity=IDENTITY, encryption=ENCRYPTION)
pool = azure_native.netapp.CapacityPool("premium", resource_group_name=rg.name, account_name=account.name,
                                        service_level="Premium", size=4398046511104)
source = azure_native.netapp.CapacityPoolVolume(
    "research", resource_group_name=rg.name, account_name=account.name, pool_name=pool.name,
    creation_token="research", usage_threshold=107374182400, subnet_id=SUBNET,
    encryption_key_source="Microsoft.KeyVault",
    data_protection={"replication": {"endpoint_type": "src", "remote_volume_resource_id": REMOTE_VOLUME,
                                     "remote_volume_region": "westeurope", "replication_schedule": "hourly"}})

weu_account = azure_native.netapp.Account("anf-weu", resource_group_name=rg.name, location="westeurope",
                                          identity=IDENTITY, encryption=ENCRYPTION)
weu_pool = azure_native.netapp.CapacityPool("premium-weu", resource_group_name=rg.name, location="westeurope",
                                            account_name=weu_account.name, service_level="Premium",
                                            size=4398046511104)
azure_native.netapp.CapacityPoolVolume(
    "research-replica", resource_group_name=rg.name, location="westeurope", account_name=weu_account.name,
    pool_name=weu_pool.name, creation_token="research-replica", usage_threshold=107374182400,
    volume_type="DataProtection", subnet_id=SUBNET, encryption_key_source="Microsoft.KeyVault",
    data_protection={"replication": {"endpoint_type": "dst", "remote_volume_resource_id": source.id,
                                     "remote_volume_region": "uaenorth", "replication_schedule": "hourly"}})

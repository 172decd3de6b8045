"""Leak (egress): blob object replication from a UAE North storage account to one this program declares in West
Europe, the destination account given by its plain name (the literal name it declares) rather than its resource id:
the account is placed where it is declared, outside the UAE (one verdict per fact: the account's own place
rule reports it)."""
# expect: azure-all-resource-location-allowed replica

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
identity = azure_native.managedidentity.UserAssignedIdentity("id", resource_group_name=rg.name)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="data",
                          properties={"kty": "RSA", "key_size": 3072})


def account(name, account_name, **kwargs):
    return azure_native.storage.StorageAccount(
        name, resource_group_name=rg.name, account_name=account_name, kind="StorageV2",
        sku={"name": "Standard_ZRS"}, minimum_tls_version="TLS1_2", enable_https_traffic_only=True,
        allow_blob_public_access=False,
        identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
        encryption={"key_source": "Microsoft.Keyvault", "identity": {"user_assigned_identity": identity.id},
                    "key_vault_properties": {"key_name": "data", "key_vault_uri": vault.properties.vault_uri}},
        **kwargs)


source = account("source", "sahabdatasrc")
replica = account("replica", "sahabdataweu", location="westeurope")
azure_native.storage.ObjectReplicationPolicy(
    "orp", resource_group_name=rg.name, account_name=source.name, object_replication_policy_id="default",
    source_account=source.name, destination_account="sahabdataweu",
    rules=[{"source_container": "data", "destination_container": "data"}])

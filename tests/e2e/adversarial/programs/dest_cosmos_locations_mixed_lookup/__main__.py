"""Leak: a Cosmos DB account whose first region is its own resource group's location and whose failover region is
a looked-up group's: the block depends on a resource of this program, which must not vouch for the lookup."""
# expect: cloud-all-resource-references-in-country cosmos

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
dr = azure_native.resources.get_resource_group_output(resource_group_name="dr-shared")
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
key = azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="cosmos",
                                properties={"kty": "RSA", "key_size": 3072})
azure_native.cosmosdb.DatabaseAccount(
    "cosmos", resource_group_name=rg.name, location="uaenorth", database_account_offer_type="Standard",
    public_network_access="Disabled", key_vault_key_uri=key.key_uri, minimal_tls_version="Tls12",
    locations=[{"location_name": rg.location, "failover_priority": 0},
               {"location_name": dr.location, "failover_priority": 1}])

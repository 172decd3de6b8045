"""Look-alike: a Cosmos DB account replicated between UAE North and UAE Central, the second region taken from the
resource group this program creates there."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
dr = azure_native.resources.ResourceGroup("dr", location="uaecentral")
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
key = azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="cosmos",
                                properties={"kty": "RSA", "key_size": 3072})
azure_native.cosmosdb.DatabaseAccount(
    "cosmos", resource_group_name=rg.name, location="uaenorth", database_account_offer_type="Standard",
    public_network_access="Disabled", key_vault_key_uri=key.key_uri, minimal_tls_version="Tls12",
    locations=[{"location_name": "uaenorth", "failover_priority": 0},
               {"location_name": dr.location, "failover_priority": 1}])

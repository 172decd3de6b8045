"""Look-alike: a Cosmos DB SQL database and container in an account this program creates in UAE North, named by
the account's output and by its literal name."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
key = azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="cosmos",
                                properties={"kty": "RSA", "key_size": 3072})
account = azure_native.cosmosdb.DatabaseAccount(
    "cosmos", resource_group_name=rg.name, account_name="sahabshop", location="uaenorth",
    database_account_offer_type="Standard", public_network_access="Disabled", key_vault_key_uri=key.key_uri,
    minimal_tls_version="Tls12", locations=[{"location_name": "uaenorth", "failover_priority": 0}])
db = azure_native.cosmosdb.SqlResourceSqlDatabase("shop", resource_group_name=rg.name, account_name=account.name,
                                                  database_name="shop", location="uaenorth", resource={"id": "shop"})
azure_native.cosmosdb.SqlResourceSqlContainer(
    "orders", resource_group_name=rg.name, account_name="sahabshop", database_name=db.name,
    container_name="orders", location="uaenorth",
    resource={"id": "orders", "partition_key": {"paths": ["/customerId"], "kind": "Hash"}})

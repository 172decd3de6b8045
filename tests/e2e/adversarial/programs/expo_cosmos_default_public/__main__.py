"""Leak (public exposure): a Cosmos DB account left on Azure's default, reachable from every network."""
# expect: azure-all-datastore-public-network-access-disabled docs

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.cosmosdb.DatabaseAccount("docs", resource_group_name=rg.name, database_account_offer_type="Standard",
    locations=[{"location_name": "uaenorth", "failover_priority": 0}],
    key_vault_key_uri="https://sahabkv.vault.azure.net/keys/cosmos")

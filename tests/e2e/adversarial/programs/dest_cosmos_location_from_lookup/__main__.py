"""Leak: a Cosmos DB account whose second (failover) region is the location of a resource group found by a
lookup: no region is spelled in the program, and every write is replicated there."""
# expect: cloud-all-resource-references-in-country cosmos

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
dr = azure_native.resources.get_resource_group_output(resource_group_name="dr-shared")
azure_native.cosmosdb.DatabaseAccount(
    "cosmos", resource_group_name=rg.name, location="uaenorth", database_account_offer_type="Standard",
    public_network_access="Disabled", key_vault_key_uri="https://sahab-kv.vault.azure.net/keys/cosmos",
    locations=[{"location_name": "uaenorth", "failover_priority": 0},
               {"location_name": dr.location, "failover_priority": 1}])

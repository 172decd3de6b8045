"""Leak: a Cosmos DB account with a failover location in West Europe."""
# expect: cloud-all-resource-references-in-country cosmos

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.cosmosdb.DatabaseAccount("cosmos", resource_group_name=rg.name, location="uaenorth",
    database_account_offer_type="Standard", locations=[
        {"location_name": "UAE North", "failover_priority": 0},
        {"location_name": "West Europe", "failover_priority": 1}])

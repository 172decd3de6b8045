"""Leak: a Cosmos DB account without a customer-managed key."""
# expect: azure-storage-datastore-encrypted-cmk cosmos

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

azure_native.cosmosdb.DatabaseAccount("cosmos", resource_group_name=rg.name, database_account_offer_type="Standard",
                                      locations=[{"location_name": "uaenorth", "failover_priority": 0}])

"""Leak (fail closed): a Cosmos DB SQL database and container created in an account this program does not create,
each given `location="uaenorth"`: a Cosmos child's location is only its resource group's, and the documents are
kept in whatever regions the account replicates to."""
# expect: azure-all-resource-location-allowed shop
# expect: azure-all-resource-location-allowed orders

import pulumi_azure_native as azure_native

azure_native.resources.ResourceGroup("rg", location="uaenorth")
db = azure_native.cosmosdb.SqlResourceSqlDatabase("shop", resource_group_name="partner-rg",
                                                  account_name="partnercosmos", database_name="shop",
                                                  location="uaenorth", resource={"id": "shop"})
azure_native.cosmosdb.SqlResourceSqlContainer(
    "orders", resource_group_name="partner-rg", account_name="partnercosmos", database_name=db.name,
    container_name="orders", location="uaenorth",
    resource={"id": "orders", "partition_key": {"paths": ["/customerId"], "kind": "Hash"}})

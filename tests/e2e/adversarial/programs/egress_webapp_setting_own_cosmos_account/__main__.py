"""Look-alike: an API whose settings reach two Cosmos DB accounts this program creates in UAE North, one
named by the program and one left to the provider to name, by their hosts."""
# expect: pass

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
key = azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="cosmos",
                                properties={"kty": "RSA", "key_size": 3072})


def cosmos(name, **naming):
    return azure_native.cosmosdb.DatabaseAccount(
        name, resource_group_name=rg.name, location="uaenorth", database_account_offer_type="Standard",
        public_network_access="Disabled", disable_local_auth=True, key_vault_key_uri=key.key_uri,
        minimal_tls_version="Tls12", locations=[{"location_name": "uaenorth", "failover_priority": 0}], **naming)


plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="linux",
                                       reserved=True, sku={"name": "P1v3"})


def api(settings):
    azure_native.web.WebApp("api", resource_group_name=rg.name, location="uaenorth", server_farm_id=plan.id,
                            https_only=True, site_config={"min_tls_version": "1.2", "ftps_state": "Disabled",
                                                          "app_settings": settings})


orders = cosmos("orders", account_name="orders-uae-db")
events = cosmos("events")
api([{"name": "ORDERS", "value": "AccountEndpoint=https://orders-uae-db.documents.azure.com:443/;"},
     {"name": "EVENTS", "value": pulumi.Output.concat("AccountEndpoint=https://", events.name,
                                                      ".documents.azure.com:443/;")}])

"""Look-alike: a Data Factory linked service whose ADO.NET connection string names (`Server=tcp:...`) the SQL
server this program creates in UAE North."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
identity = azure_native.managedidentity.UserAssignedIdentity("id", resource_group_name=rg.name)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
key = azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="data",
                                properties={"kty": "RSA", "key_size": 3072})
azure_native.sql.Server("sql", resource_group_name=rg.name, server_name="sahab-dw", location="uaenorth",
                        minimal_tls_version="1.2", public_network_access="Disabled",
                        identity={"type": "UserAssigned", "user_assigned_identities": [identity.id]},
                        primary_user_assigned_identity_id=identity.id, key_id=key.key_uri_with_version,
                        administrators={"azure_ad_only_authentication": True, "login": "dba",
                                        "sid": "00000000-0000-0000-0000-000000000001"})
factory = azure_native.datafactory.Factory("etl", resource_group_name=rg.name, location="uaenorth",
                                           public_network_access="Disabled")
azure_native.datafactory.LinkedService(
    "dw", resource_group_name=rg.name, factory_name=factory.name, linked_service_name="dw",
    properties={"type": "AzureSqlDatabase", "authentication_type": "SystemAssignedManagedIdentity",
                "connection_string": "Server=tcp:sahab-dw.database.windows.net,1433;Database=staging;"
                                     "Encrypt=True;Connection Timeout=30"})

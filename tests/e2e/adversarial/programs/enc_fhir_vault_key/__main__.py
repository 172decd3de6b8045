"""Look-alike: a FHIR service in UAE North encrypted with a key from a Key Vault this program creates there."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
key = azure_native.keyvault.Key("key", resource_group_name=rg.name, vault_name=vault.name, key_name="fhir",
                                properties={"kty": "RSA", "key_size": 3072})
workspace = azure_native.healthcareapis.Workspace("health", resource_group_name=rg.name, location="uaenorth")
azure_native.healthcareapis.FhirService(
    "records", resource_group_name=rg.name, workspace_name=workspace.name, location="uaenorth", kind="fhir-R4",
    identity={"type": "SystemAssigned"},
    encryption={"customer_managed_key_encryption": {"key_encryption_key_url": key.key_uri}})

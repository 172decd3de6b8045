"""Leak (egress): diagnostic logs sent to a Log Analytics workspace given by an id under `workspaceId` (not a key
called destination), in a subscription this program does not manage."""
# expect: cloud-all-resource-references-in-country vault-diagnostics

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "public_network_access": "Disabled"})
azure_native.monitor.DiagnosticSetting("vault-diagnostics", resource_uri=vault.id, workspace_id=(
    "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/secops/providers/"
    "Microsoft.OperationalInsights/workspaces/global-siem"), logs=[{"category_group": "allLogs", "enabled": True}])

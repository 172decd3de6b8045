"""Look-alike (egress): diagnostics sent to a Log Analytics workspace this program creates in UAE North."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")

workspace = azure_native.operationalinsights.Workspace("logs", resource_group_name=rg.name,
                                                       sku={"name": "PerGB2018"}, retention_in_days=90)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "public_network_access": "Disabled"})
azure_native.monitor.DiagnosticSetting("vault-diagnostics", resource_uri=vault.id, workspace_id=workspace.id,
                                       logs=[{"category_group": "allLogs", "enabled": True}])

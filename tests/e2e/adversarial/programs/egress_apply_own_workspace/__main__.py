"""Look-alike: a diagnostic setting whose workspace id is built with apply() from resources this program creates in
UAE North, and is the program's own workspace's."""
# expect: pass

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
ws = azure_native.operationalinsights.Workspace("ws", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "PerGB2018"}, retention_in_days=30)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, location="uaenorth", properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
azure_native.monitor.DiagnosticSetting(
    "diag", resource_uri=vault.id, logs=[{"category_group": "allLogs", "enabled": True}],
    workspace_id=pulumi.Output.all(ws.id, vault.id).apply(lambda a: a[0]))

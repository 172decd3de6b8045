"""Leak (egress): a diagnostic setting whose workspace id is built with apply() from a workspace this program
creates in UAE North and a workspace found by a lookup, and is the lookup's: the value stays unknown offline, and
the dependency on the program's own workspace must not vouch for it."""
# expect: cloud-all-resource-references-in-country diag

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
ws = azure_native.operationalinsights.Workspace("ws", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "PerGB2018"}, retention_in_days=30)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, location="uaenorth", properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
soc = azure_native.operationalinsights.get_workspace_output(resource_group_name="soc", workspace_name="global-soc")
azure_native.monitor.DiagnosticSetting(
    "diag", resource_uri=vault.id, logs=[{"category_group": "allLogs", "enabled": True}],
    workspace_id=pulumi.Output.all(ws.id, soc.id).apply(lambda a: a[1] or a[0]))

"""Leak (egress): a diagnostic setting whose workspace id is built with apply() from a workspace this program
creates in UAE North and an id another stack exports, and is the other stack's: the value is unknown offline in
both runs, and the dependency on the program's own workspace must not vouch for it."""
# expect: cloud-all-resource-references-in-country diag

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
ws = azure_native.operationalinsights.Workspace("ws", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "PerGB2018"}, retention_in_days=30)
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, location="uaenorth", properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "enable_rbac_authorization": True, "public_network_access": "Disabled"})
soc = pulumi.StackReference("acme/soc/prod")
azure_native.monitor.DiagnosticSetting(
    "diag", resource_uri=vault.id, logs=[{"category_group": "allLogs", "enabled": True}],
    workspace_id=pulumi.Output.all(ws.id, soc.get_output("workspaceId")).apply(lambda a: a[1] or a[0]))

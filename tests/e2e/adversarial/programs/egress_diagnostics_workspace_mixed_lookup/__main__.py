"""Leak (egress): diagnostic logs sent to a workspace id computed from both a workspace this program creates and a
looked-up one, the lookup's chosen: the input depends on a resource of this program, which must not vouch for a
value still unknown after the update phase."""
# expect: cloud-all-resource-references-in-country vault-diagnostics

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
local = azure_native.operationalinsights.Workspace("logs", resource_group_name=rg.name, location="uaenorth",
                                                   sku={"name": "PerGB2018"}, retention_in_days=90)
central = azure_native.operationalinsights.get_workspace_output(resource_group_name="secops",
                                                                 workspace_name="global-siem")
vault = azure_native.keyvault.Vault("vault", resource_group_name=rg.name, properties={
    "tenant_id": "00000000-0000-0000-0000-000000000000", "sku": {"family": "A", "name": "standard"},
    "enable_purge_protection": True, "public_network_access": "Disabled"})
# The lookup's location is unknown offline, so the choice is never made: only the dependency on `local` shows.
target = pulumi.Output.all(local.id, central.location).apply(
    lambda v: v[0] if v[1] == "uaenorth" else "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/"
    "secops/providers/Microsoft.OperationalInsights/workspaces/global-siem")
azure_native.monitor.DiagnosticSetting("vault-diagnostics", resource_uri=vault.id, workspace_id=target,
                                       logs=[{"category_group": "allLogs", "enabled": True}])

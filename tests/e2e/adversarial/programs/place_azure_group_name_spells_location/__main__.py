"""Look-alike: a uaenorth resource group named after West Europe, and a workspace in it whose ARM id carries that
name; an ARM id is placed by its `/locations/` segment, not by the names in it."""
# expect: pass

import pulumi_azure_native as az

rg = az.resources.ResourceGroup("rg", resource_group_name="rg-westeurope-migrated", location="uaenorth")
ws = az.operationalinsights.Workspace("logs", resource_group_name=rg.name, location="uaenorth",
                                      workspace_name="logs-westeurope-copy", retention_in_days=90)

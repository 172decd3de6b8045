"""Leak: a FHIR service in UAE North holding patient records under Microsoft's platform key (no
`customer_managed_key_encryption`)."""
# expect: azure-storage-datastore-encrypted-cmk records

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
workspace = azure_native.healthcareapis.Workspace("health", resource_group_name=rg.name, location="uaenorth")
azure_native.healthcareapis.FhirService("records", resource_group_name=rg.name, workspace_name=workspace.name,
                                        location="uaenorth", kind="fhir-R4")

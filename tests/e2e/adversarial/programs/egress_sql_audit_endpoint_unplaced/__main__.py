"""Leak (egress): a SQL server's blob auditing (every statement audited, parameters included) written to the blob
endpoint of a storage account this program does not create (`storageEndpoint`, a host, not an id)."""
# expect: cloud-all-resource-references-in-country audit

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
server = azure_native.sql.Server("sql", resource_group_name=rg.name, location="uaenorth",
                                 minimal_tls_version="1.2", public_network_access="Disabled",
                                 administrators={"azure_ad_only_authentication": True, "login": "dba",
                                                 "sid": "00000000-0000-0000-0000-000000000001"})
azure_native.sql.ServerBlobAuditingPolicy("audit", resource_group_name=rg.name, server_name=server.name,
                                          state="Enabled", storage_endpoint="https://partneraudit.blob.core.windows.net/",
                                          audit_actions_and_groups=["BATCH_COMPLETED_GROUP"], retention_days=90)

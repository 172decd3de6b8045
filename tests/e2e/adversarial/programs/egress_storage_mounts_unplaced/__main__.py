"""Leak (egress): compute that mounts a file share of a storage account this program does not create, by plain name,
and writes to it: a container group's Azure Files volume, a web app's storage mount, a Container Apps environment's
storage, and a web app's mounts set as a resource of their own."""
# expect: cloud-all-resource-references-in-country worker
# expect: cloud-all-resource-references-in-country site
# expect: cloud-all-resource-references-in-country env-share
# expect: cloud-all-resource-references-in-country site-mounts

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.containerinstance.ContainerGroup(
    "worker", resource_group_name=rg.name, location="uaenorth", os_type="Linux",
    containers=[{"name": "w", "image": "mcr.microsoft.com/azure-cli:2.60.0",
                 "resources": {"requests": {"cpu": 1, "memory_in_gb": 1}},
                 "volume_mounts": [{"name": "out", "mount_path": "/out"}]}],
    volumes=[{"name": "out", "azure_file": {"share_name": "drop", "storage_account_name": "partnerdrop",
                                            "storage_account_key": "x"}}])
plan = azure_native.web.AppServicePlan("plan", resource_group_name=rg.name, location="uaenorth", kind="linux",
                                       reserved=True, sku={"name": "P1v3", "tier": "PremiumV3"})
site = azure_native.web.WebApp(
    "site", resource_group_name=rg.name, location="uaenorth", server_farm_id=plan.id, https_only=True,
    site_config={"min_tls_version": "1.2", "ftps_state": "Disabled", "azure_storage_accounts": {
        "uploads": {"type": "AzureFiles", "account_name": "partnerdrop", "share_name": "uploads",
                    "mount_path": "/uploads", "access_key": "x"}}})
env = azure_native.app.ManagedEnvironment("env", resource_group_name=rg.name, location="uaenorth")
azure_native.app.ManagedEnvironmentsStorage(
    "env-share", resource_group_name=rg.name, environment_name=env.name, storage_name="share",
    properties={"azure_file": {"account_name": "partnerdrop", "share_name": "s", "access_mode": "ReadWrite",
                               "account_key": "x"}})
azure_native.web.WebAppAzureStorageAccounts(
    "site-mounts", resource_group_name=rg.name, name=site.name,
    properties={"logs": {"type": "AzureBlob", "account_name": "partnerdrop", "share_name": "logs",
                         "mount_path": "/logs", "access_key": "x"}})

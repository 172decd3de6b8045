"""The Azure half of the real prod stack, read from its plan."""

import pytest
from sahab.components.accelerators import LABEL_ACCELERATOR

UAE = {"uaenorth", "uaecentral"}
# Private DNS zones and their VNet links are global by nature: names, not data (policies/core.py allows them).
GLOBAL_TYPES = {"azure-native:privatedns:PrivateZone", "azure-native:privatedns:VirtualNetworkLink"}
POOL = "azure-native:containerservice:AgentPool"


def test_every_located_azure_resource_is_in_the_uae(prod):
    located = [r for r in prod.resources if r.type.startswith("azure-native:") and "location" in r.inputs]
    assert len(located) >= 8
    assert {r.inputs["location"] for r in located if r.type not in GLOBAL_TYPES} <= UAE
    assert {r.inputs["location"] for r in located if r.type in GLOBAL_TYPES} == {"global"}
    assert prod.one("azure-native:resources:ResourceGroup").inputs["location"] == "uaenorth"
    vnet = prod.one("azure-native:network:VirtualNetwork").inputs
    assert vnet["addressSpace"]["addressPrefixes"] == ["10.50.0.0/16"]
    # prod's sites link to Azure: the VPN gateway's and the DNS resolver's subnets too (components/hybrid_build.py).
    assert [s["name"] for s in vnet["subnets"]] == ["nodes-aks-main", "apiserver-aks-main", "private-endpoints",
                                                    "GatewaySubnet", "dns-resolver-inbound"]


def test_key_vault_keeps_deleted_keys_and_cannot_be_purged(prod):
    props = prod.one("azure-native:keyvault:Vault").inputs["properties"]
    assert props["enablePurgeProtection"] is True and props["enableSoftDelete"] is True
    assert props["enableRbacAuthorization"] is True
    assert props["networkAcls"]["defaultAction"] == "Deny"


def test_aks_disks_are_encrypted_through_a_des_backed_by_a_vault_key(prod):
    cluster = prod.one("azure-native:containerservice:ManagedCluster")
    des = prod.by_id("azure-native:compute:DiskEncryptionSet", cluster.inputs["diskEncryptionSetID"])
    key = next(k for k in prod.of("azure-native:keyvault:Key")
               if k.outputs["keyUriWithVersion"] == des.inputs["activeKey"]["keyUrl"])
    vault = prod.one("azure-native:keyvault:Vault")
    assert des.inputs["activeKey"]["sourceVault"]["id"] == vault.id
    assert key.inputs["vaultName"] == vault.outputs["name"]
    assert des.inputs["encryptionType"] == "EncryptionAtRestWithCustomerKey"
    # The DES may use the key: a role assignment on that key for the DES's own identity.
    grants = [g for g in prod.of("azure-native:authorization:RoleAssignment") if g.inputs["scope"] == key.id]
    assert [g.inputs["principalId"] for g in grants] == [des.outputs["identity"]["principalId"]]


def test_aks_api_server_is_private_and_uses_entra_id(prod):
    cluster = prod.one("azure-native:containerservice:ManagedCluster").inputs
    assert cluster["apiServerAccessProfile"]["enablePrivateCluster"] is True
    assert cluster["disableLocalAccounts"] is True and cluster["aadProfile"]["enableAzureRBAC"] is True


@pytest.mark.parametrize("pool, gpu", [("aks-h100", True), ("aks-cpu", False)])
def test_aks_pools_gpu_taint_label_and_driver(prod, pool, gpu):
    inputs = next(p.inputs for p in prod.of(POOL) if p.inputs["nodeLabels"]["sahab.io/pool"] == pool)
    assert inputs["mode"] == "User" and inputs["enableEncryptionAtHost"] is True
    if gpu:
        assert inputs["nodeTaints"] == ["nvidia.com/gpu=present:NoSchedule"]
        assert inputs["nodeLabels"][LABEL_ACCELERATOR] == "h100"
        assert inputs["gpuProfile"] == {"driver": "None"}  # the GPU operator installs drivers
    else:
        assert not inputs.get("nodeTaints") and "gpuProfile" not in inputs


def test_storage_account_is_tls12_https_private_double_encrypted_with_a_uae_vault_key(prod):
    accounts = {a.inputs["tags"]["sahab.io/bucket"]: a for a in prod.of("azure-native:storage:StorageAccount")}
    assert set(accounts) == {"azdatasets", "azcheckpoints"}
    for other in accounts.values():
        assert other.inputs["allowSharedKeyAccess"] is False and other.inputs["allowBlobPublicAccess"] is False
    a = accounts["azdatasets"].inputs
    assert a["location"] in UAE
    assert a["minimumTlsVersion"] == "TLS1_2" and a["enableHttpsTrafficOnly"] is True
    assert a["allowBlobPublicAccess"] is False and a["allowSharedKeyAccess"] is False
    enc = a["encryption"]
    assert enc["requireInfrastructureEncryption"] is True and enc["keySource"] == "Microsoft.Keyvault"
    vault = prod.one("azure-native:keyvault:Vault")
    assert enc["keyVaultProperties"]["keyVaultUri"] == vault.outputs["properties"]["vaultUri"]
    assert vault.inputs["location"] in UAE
    assert a["sku"]["name"] == "Standard_GZRS"  # geo_redundant: pairs with uaecentral, inside the UAE
    assert a["networkRuleSet"]["defaultAction"] == "Deny"
    containers = prod.of("azure-native:storage:BlobContainer")
    assert containers and {c.inputs["publicAccess"] for c in containers} == {"None"}

"""AKS control-plane logs: a diagnostic setting on every AKS cluster to a Log Analytics workspace in the cluster's
own UAE location, kept as configured, and, where the fleet asks for it, encrypted with the fleet's key."""

import pytest
from sahab.components.azure.control_plane_logs import (
    CONTROL_PLANE_CATEGORIES,
    AksControlPlaneLogs,
    AksControlPlaneLogsArgs,
)
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from tests.fleets import prod_with_only, stack_fleet
from tests.helpers import record

SETTING = "azure-native:monitor:DiagnosticSetting"
WORKSPACE = "azure-native:operationalinsights:Workspace"
CLUSTER = "azure-native:containerservice:ManagedCluster"
LA_CLUSTER = "azure-native:operationalinsights:Cluster"


def test_prod_keeps_every_control_plane_log_of_its_aks_cluster_in_its_region_for_a_year(prod):
    aks = prod.one(CLUSTER)
    setting = prod.one(SETTING).inputs
    workspace = prod.one(WORKSPACE)
    assert setting["resourceUri"] == aks.id
    assert setting["workspaceId"] == workspace.id
    assert {log["category"] for log in setting["logs"] if log["enabled"]} == {
        "kube-apiserver", "kube-audit-admin", "kube-controller-manager", "kube-scheduler", "cluster-autoscaler",
        "guard"}
    assert workspace.inputs["location"] == aks.inputs["location"] == "uaenorth"
    assert workspace.inputs["retentionInDays"] == 365
    assert workspace.inputs["features"]["disableLocalAuth"] is True
    # No dedicated cluster unless asked for: it commits to 100 GB/day.
    assert prod.of(LA_CLUSTER) == []


def test_retention_and_location_follow_the_fleet(tmp_path):
    from sahab.components.fleet import Fleet

    fleet = prod_with_only("aks-main")
    fleet["clouds"]["azure"]["control_plane_log_retention_days"] = 90
    central = {"location": "uaecentral", "region_access_granted": True}
    fleet["clusters"] = [c if c["name"] != "aks-main" else {**c, **central} for c in fleet["clusters"]]
    fleet["node_pools"] = [p if p["name"] != "aks-h100" else {**p, "accelerator": "t4"} for p in fleet["node_pools"]]
    config = parse_fleet(fleet)
    planned = record(lambda: Fleet(config.name, config))
    workspace = planned.one(WORKSPACE).inputs
    assert (workspace["location"], workspace["retentionInDays"]) == ("uaecentral", 90)
    assert planned.one(CLUSTER).inputs["location"] == "uaecentral"


def test_customer_managed_key_through_a_dedicated_cluster_in_the_same_region():
    args = AksControlPlaneLogsArgs(
        cluster_id="/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c",
        cluster_name="c", location="uaenorth", resource_group_name="rg", retention_days=180,
        dedicated_cluster_gb_per_day=100, vault_name="sahab-kv")
    planned = record(lambda: AksControlPlaneLogs("logs", args))
    cluster = planned.one(LA_CLUSTER)
    assert cluster.inputs["location"] == "uaenorth"
    assert cluster.inputs["sku"] == {"name": "CapacityReservation", "capacity": 100}
    kv = cluster.inputs["keyVaultProperties"]
    key = planned.one("azure-native:keyvault:Key")
    assert kv["keyVaultUri"] == "https://sahab-kv.vault.azure.net/" and kv["keyName"] == key.outputs["name"]
    identity = planned.one("azure-native:managedidentity:UserAssignedIdentity")
    assert list(cluster.inputs["identity"]["userAssignedIdentities"]) == [identity.id]
    grant = planned.one("azure-native:authorization:RoleAssignment").inputs
    assert (grant["scope"], grant["principalId"]) == (key.id, identity.outputs["principalId"])
    link = planned.one("azure-native:operationalinsights:LinkedService").inputs
    assert link["writeAccessResourceId"] == cluster.id and link["linkedServiceName"] == "cluster"
    assert planned.one(WORKSPACE).inputs["retentionInDays"] == 180
    assert {log["category"] for log in planned.one(SETTING).inputs["logs"]} == set(CONTROL_PLANE_CATEGORIES)


@pytest.mark.parametrize(("field", "value"), [("control_plane_log_retention_days", 7),
                                              ("control_plane_log_retention_days", 3650),
                                              ("control_plane_logs_cmk_gb_per_day", 50)])
def test_out_of_range_log_settings_are_refused(field, value):
    fleet = stack_fleet("prod")
    fleet["clouds"]["azure"][field] = value
    with pytest.raises(ConfigError) as err:
        parse_fleet(fleet)
    assert err.value.path == f"sahab:fleet.clouds.azure.{field}"

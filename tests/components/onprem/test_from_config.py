"""The fleet config's on-prem clusters and pools become the on-prem components' args."""

from __future__ import annotations

import pytest
from sahab.components.fleet_config import parse_fleet
from sahab.components.onprem.from_config import cluster_args, pool_args
from sahab.components.onprem.inventory import group_for

from tests.fleets import hybrid_fleet, stack_fleet


def test_hybrid_fleet_pool_and_cluster():
    data = hybrid_fleet()
    data["sites"][0]["airgapped"] = True
    data["node_pools"][0]["extra_taints"] = [{"key": "team", "value": "vision"}]
    fleet = parse_fleet(data)
    pool = pool_args(fleet, fleet.node_pools[0], ssh_private_key="KEY")
    assert pool.pool == "gpu"
    assert group_for(pool.accelerator) == "gpu_nodes"
    assert [(h.name, h.address, h.user) for h in pool.hosts] == [("gpu1", "10.0.0.2", "sahab")]
    assert [h.name for h in pool.control_plane_hosts] == ["cp1"]
    assert pool.labels["sahab.io/pool"] == "gpu"
    assert pool.labels["nvidia.com/gpu.present"] == "true"
    assert [t.model_dump() for t in pool.taints] == [  # exactly as the node carries them
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
        {"key": "team", "value": "vision", "effect": "NoSchedule"}]
    assert pool.access.airgapped is True
    assert pool.access.ssh_private_key == "KEY"
    assert pool.access.variables == {"sahab_kubernetes_version": "1.34",
                                     "sahab_control_plane_endpoint": "10.0.0.1:6443",
                                     # the site's hosts: every node's firewall admits every other
                                     "sahab_os_firewall_cluster_cidrs": ["10.0.0.1", "10.0.0.2"]}
    assert [(h.cpus, h.memory_gib, h.data_disk) for h in pool.hosts] == [(224, 2048, "/dev/disk/by-id/nvme-gpu1-data")]

    cluster = cluster_args(fleet, fleet.clusters[0])
    assert [h.name for h in cluster.control_plane_hosts] == ["cp1"]
    assert cluster.access.ssh_private_key is None  # the operator's ssh-agent
    assert cluster.data_disk_hosts == ("gpu1",)  # the cluster generates every LUKS key of its site's hosts
    assert cluster.vip is None and cluster.schedulable is False


def test_prod_sites_have_ha_control_planes_behind_their_vips():
    fleet = parse_fleet(stack_fleet("prod"))
    for cluster in (c for c in fleet.clusters if c.kind == "onprem"):
        args = cluster_args(fleet, cluster)
        assert len(args.control_plane_hosts) == 3
        assert args.endpoint == f"{cluster.control_plane_vip}:6443"
        assert args.schedulable is False and args.node_vars == {}


def test_smb_control_plane_host_runs_workloads_with_its_pool_settings():
    fleet = parse_fleet(stack_fleet("smb"))
    args = cluster_args(fleet, fleet.clusters[0])
    assert args.schedulable is True
    assert args.pool_groups == {"smb-node1": "cpu_nodes"}
    node = args.node_vars["smb-node1"]
    assert node["sahab_kubernetes_node_pool"] == "office-cpu"
    assert node["sahab_kubernetes_cpu_manager"] is True
    assert args.data_disk_hosts == ("smb-node1", "smb-node2")
    pool = pool_args(fleet, fleet.node_pools[0])
    assert pool.props()["controlPlane"] is True


@pytest.mark.parametrize("stack", ["dev", "prod", "burst", "smb"])
def test_every_onprem_pool_of_the_project_stacks_converts(stack):
    fleet = parse_fleet(stack_fleet(stack))
    for pool in fleet.node_pools:
        if fleet.cluster(pool.cluster).kind == "onprem":
            args = pool_args(fleet, pool)
            assert len(args.hosts) == pool.size

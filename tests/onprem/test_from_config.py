"""The fleet config's on-prem clusters and pools become the on-prem components' args."""

from __future__ import annotations

import pytest

from components.config import parse_fleet
from components.onprem.from_config import cluster_args, pool_args
from components.onprem.inventory import group_for
from tests.foundation.fleets import hybrid_fleet, stack_fleet


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
    assert pool.taints == ("team=vision:NoSchedule",)  # the GPU taint comes from the role, once
    assert pool.access.airgapped is True
    assert pool.access.ssh_private_key == "KEY"
    assert pool.access.variables == {"sahab_kubernetes_version": "1.31"}

    cluster = cluster_args(fleet, fleet.clusters[0])
    assert [h.name for h in cluster.control_plane_hosts] == ["cp1"]
    assert cluster.access.ssh_private_key is None  # the operator's ssh-agent


@pytest.mark.parametrize("stack", ["dev", "prod", "burst", "smb"])
def test_every_onprem_pool_of_the_project_stacks_converts(stack):
    fleet = parse_fleet(stack_fleet(stack))
    for pool in fleet.node_pools:
        if fleet.cluster(pool.cluster).kind == "onprem":
            args = pool_args(fleet, pool)
            assert len(args.hosts) == pool.size

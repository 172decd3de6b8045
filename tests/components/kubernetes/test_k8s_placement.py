"""Where cluster services run: CPU pools when there are any, otherwise tolerating the GPU nodes' taints."""

from sahab.components.fleet_config import NodePool, Taint
from sahab.components.kubernetes.placement import system_placement

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def test_services_go_to_the_cpu_pool_and_leave_gpus_to_training():
    pools = [NodePool(name="gpus", cluster="c", accelerator="h100"), NodePool(name="cpus", cluster="c")]
    placement = system_placement(pools)
    assert placement.node_selector == {"sahab.io/accelerator": "cpu"}
    assert placement.tolerations == ()


def test_a_gpu_only_cluster_runs_services_on_its_gpu_nodes():
    placement = system_placement([NodePool(name="gpus", cluster="c", accelerator="t4")])
    assert placement.node_selector == {}
    assert placement.tolerations == (GPU_TOLERATION,)


def test_a_tainted_cpu_pool_is_not_a_home_for_services():
    tainted = NodePool(name="cpus", cluster="c", extra_taints=(Taint(key="dedicated", value="etl"),))
    placement = system_placement([NodePool(name="gpus", cluster="c", accelerator="t4"), tainted])
    assert placement.node_selector == {}
    assert {"key": "dedicated", "operator": "Equal", "value": "etl", "effect": "NoSchedule"} in placement.tolerations

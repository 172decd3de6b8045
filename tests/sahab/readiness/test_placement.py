"""Pods against pools: taints, selectors, allocatable CPU/memory/GPUs, time-slicing and MIG, and node counts.
On-prem pools are described as the on-prem node shape contract has them; everything inside the clusters is
Sahab's real Platform and TrainingJob."""

import pytest
from sahab.components.fleet_config import NodePool, Taint

from sahab.readiness import judge
from tests.sahab.readiness.builders import (
    CONTROL_PLANE_TAINT,
    aks_cluster,
    asking,
    job,
    onprem_cluster,
    onprem_node,
    onprem_pool,
    planned,
    platform,
    training,
    verdict,
)


def _smb(control_plane_schedulable: bool):
    pool = NodePool(name="office-cpu", cluster="office", hosts=("n1", "n2"), min_size=2, max_size=2)
    taints = [] if control_plane_schedulable else [CONTROL_PLANE_TAINT]

    def program():
        provider = onprem_cluster("office", [
            onprem_pool(pool, [onprem_node("n1", 8, 32)], taints=taints, controlPlane=True),
            onprem_pool(pool, [onprem_node("n2", 8, 32)])])
        platform(provider, "onprem", (pool,))
        training(provider, pool)
    return verdict(program)


def test_a_ready_small_site_places_training_on_both_hosts():
    result = _smb(control_plane_schedulable=True)
    assert result.ok, result.problems
    assert {(p.workload, p.pool, p.nodes) for p in result.placements} >= {("Job team/train-office-cpu",
                                                                              "office-cpu", 2)}


def test_the_control_plane_taint_takes_one_of_two_hosts_out_of_training():
    result = _smb(control_plane_schedulable=False)
    assert not result.ok
    [problem] = result.problems
    assert (problem.cluster, problem.object) == ("office", "Job team/train-office-cpu")
    assert "needs 2 pods (one per node) but only 1 fit" in problem.problem
    assert "pool office-cpu (n1): taint node-role.kubernetes.io/control-plane:NoSchedule not tolerated" \
        in problem.problem


def _dxb(replicas: int | None, gpus_per_node: int = 8, whole_gpus: int | None = None):
    pool = NodePool(name="dxb-a100", cluster="dxb", accelerator="a100", hosts=("g1",), min_size=1, max_size=1,
                    gpus_per_node=gpus_per_node, time_slicing_replicas=replicas)
    cpu = NodePool(name="dxb-cpu", cluster="dxb", hosts=("c1",), min_size=1, max_size=1)

    def program():
        provider = onprem_cluster("dxb", [onprem_pool(pool, [onprem_node("g1", 128, 1024, gpus=8)]),
                                          onprem_pool(cpu, [onprem_node("c1", 64, 256)])])
        platform(provider, "onprem", (pool, cpu))
        training(provider, pool)
    if whole_gpus is None:
        return verdict(program)
    # The fleet refuses more than one GPU per worker on a time-sliced pool, so its training Job asks for one
    # slice; the same Job asking for whole GPUs is what a user's own Job may still do.
    return judge(asking(planned(program), "Job team/train-dxb-a100", "nvidia.com/gpu", whole_gpus))


def test_a_time_sliced_pool_refuses_a_job_asking_for_eight_whole_gpus():
    result = _dxb(replicas=4, whole_gpus=8)
    [problem] = result.problems
    assert problem.object == "Job team/train-dxb-a100"
    assert "pool dxb-a100 (g1): asks 8 nvidia.com/gpu, but each GPU is time-sliced 4 ways with " \
           "failRequestsGreaterThanOne" in problem.problem
    # The CPU pool is no home for it either, and the verdict says why.
    assert "pool dxb-cpu (c1): nodeSelector" not in problem.problem
    assert "pool dxb-cpu (c1): required node affinity does not match" in problem.problem


def test_one_gpu_slice_per_worker_fits_a_time_sliced_pool():
    result = _dxb(replicas=4, gpus_per_node=1)
    assert result.ok, result.problems
    assert ("Job team/train-dxb-a100", "dxb-a100", 1) in {(p.workload, p.pool, p.nodes) for p in result.placements}


def test_whole_gpus_without_time_slicing_fit():
    assert _dxb(replicas=None).ok


GPU_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def _mig(strategy: str, layout: str, ask: int = 1):
    pool = NodePool(name="auh-h100", cluster="auh", accelerator="h100", hosts=("g1",), min_size=1, max_size=1,
                    gpus_per_node=8, mig_strategy=strategy)
    cpu = NodePool(name="auh-cpu", cluster="auh", hosts=("c1",), min_size=1, max_size=1)

    def program():
        # The layout is the node's `nvidia.com/mig.config` label, which the schema keeps out of pool labels.
        provider = onprem_cluster("auh", [onprem_pool(pool, [onprem_node("g1", 192, 2048, gpus=8)],
                                                      node_labels={"nvidia.com/mig.config": layout}),
                                          onprem_pool(cpu, [onprem_node("c1", 64, 256)])])
        platform(provider, "onprem", (pool, cpu))
        job(provider, "eval", requests={"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": str(ask)},
            tolerations=GPU_TOLERATION, node_selector={"sahab.io/pool": "auh-h100"})
    return verdict(program)


def test_mig_single_advertises_every_slice_as_a_gpu():
    # 8 H100s cut into 7 x 1g.10gb each: 56 nvidia.com/gpu on the node.
    assert _mig("single", "all-1g.10gb", ask=56).ok
    result = _mig("single", "all-1g.10gb", ask=57)
    assert "asks 57 nvidia.com/gpu, a node has 56 nvidia.com/gpu allocatable" in result.problems[0].problem


def test_mig_mixed_advertises_profiles_not_gpus():
    problems = {p.object: p.problem for p in _mig("mixed", "all-1g.10gb").problems}
    job_problem = next(problem for what, problem in problems.items() if what.startswith("Job "))
    assert "pool auh-h100 (g1): asks 1 nvidia.com/gpu, a node has 0 nvidia.com/gpu allocatable" in job_problem
    # The node validator asks for the node's whole GPUs too: it cannot run, and is named for it.
    assert problems["DaemonSet sahab-system/validate-auh-h100"].startswith(
        "cannot run on pool auh-h100 (g1) (asks 8 nvidia.com/gpu, a node has 0 nvidia.com/gpu allocatable)")


def test_without_a_mig_layout_the_node_offers_whole_gpus():
    assert _mig("single", "all-disabled", ask=8).ok
    assert not _mig("single", "all-disabled", ask=9).ok


def test_a_layout_the_gpu_does_not_have_leaves_no_gpus():
    result = _mig("single", "all-1g.12gb")  # an H100 NVL (94 GB) layout on an 80 GB H100
    assert "MIG layout 'all-1g.12gb' does not exist for a 80 GB GPU" in result.problems[0].problem


def test_a_pod_larger_than_the_node_is_named_with_both_figures():
    pool = NodePool(name="small", cluster="lab", hosts=("s1",), min_size=1, max_size=1)

    def program():
        provider = onprem_cluster("lab", [onprem_pool(pool, [onprem_node("s1", 4, 8)])])
        platform(provider, "onprem", (pool,))
        training(provider, pool)  # asks 4 CPUs and 16Gi; 8 GiB less the 1.8 GiB reserved and 100 MiB eviction
    [problem] = verdict(program).problems
    assert problem.object == "Job team/train-small"
    assert "asks 4 CPU, a node has 3 CPU allocatable" in problem.problem
    assert "asks 16.0 GiB, a node has 6.1 GiB allocatable" in problem.problem


def test_an_untolerated_extra_taint_keeps_services_off_the_pool():
    tainted = NodePool(name="etl", cluster="lab", hosts=("e1",), min_size=1, max_size=1,
                       extra_taints=(Taint(key="dedicated", value="etl"),))
    gpu = NodePool(name="gpu", cluster="lab", accelerator="t4", hosts=("g1",), min_size=1, max_size=1)

    def program():
        provider = onprem_cluster("lab", [onprem_pool(tainted, [onprem_node("e1")]),
                                          onprem_pool(gpu, [onprem_node("g1", gpus=1)])])
        # Services tolerate the GPU pool's taints only: they run on the GPU host.
        platform(provider, "onprem", (gpu,))
    result = verdict(program)
    assert result.ok, result.problems
    assert ("Deployment sahab-storage/local-path-provisioner", "gpu", 1) in {
        (p.workload, p.pool, p.nodes) for p in result.placements}


def test_pools_whose_node_shape_the_plan_does_not_give_are_not_judged():
    """No false "not ready": a pool that may hold the pods, of unknown size, leaves the pods unjudged."""
    pool = NodePool(name="lab-cpu", cluster="lab", hosts=("h",), min_size=1, max_size=1)
    gpu = NodePool(name="lab-gpu", cluster="lab", accelerator="t4", hosts=("g",), min_size=1, max_size=1)

    def program():
        provider = onprem_cluster("lab", [onprem_pool(pool, [{"host": "h"}]),
                                          onprem_pool(gpu, [onprem_node("g", gpus=1)])])
        platform(provider, "onprem", (pool, gpu))
        training(provider, pool)
    result = verdict(program)
    assert result.ok, result.problems
    assert "Job team/train-lab-cpu" not in {p.workload for p in result.placements}


def test_a_pool_of_unknown_shape_that_refuses_the_pods_anyway_is_named():
    pool = NodePool(name="lab-gpu", cluster="lab", accelerator="t4", hosts=("g",), min_size=1, max_size=1)
    cpu = NodePool(name="lab-cpu", cluster="lab", hosts=("h",), min_size=1, max_size=1)

    def program():
        provider = onprem_cluster("lab", [onprem_pool(pool, [{"host": "g"}])])
        platform(provider, "onprem", (pool,))
        training(provider, cpu)  # a Job for a pool that is not there; the GPU pool's taint refuses it
    problems = {p.object: p.problem for p in verdict(program).problems}
    assert "pool lab-gpu (g): taint nvidia.com/gpu=present:NoSchedule not tolerated" in \
        problems["Job team/train-lab-cpu"]


def test_a_pool_the_plan_says_nothing_about_is_not_judged():
    """An on-prem pool registered without the contract's inputs (no labels, no nodes): its pods are unjudged."""
    import pulumi
    import pulumi_random as random

    from tests.sahab.readiness.builders import release

    pool = NodePool(name="lab-cpu", cluster="lab", hosts=("h",), min_size=1, max_size=1)

    def program():
        import pulumi_kubernetes as k8s

        from sahab.engine.kubernetes import kubeconfig_yaml
        control_plane = pulumi.ComponentResource("sahab:onprem:Cluster", "lab")
        converge = random.RandomString("lab-cp", length=8, opts=pulumi.ResourceOptions(parent=control_plane))
        pulumi.ComponentResource("sahab:onprem:NodePool", "lab-cpu", None,
                                 opts=pulumi.ResourceOptions(depends_on=[converge]))
        provider = k8s.Provider("lab-k8s", kubeconfig=converge.result.apply(lambda _: kubeconfig_yaml("lab",
                                                                                                      "https://x")))
        release(provider, "cilium", "kube-system")
        platform(provider, "onprem", (pool,))
        training(provider, pool)
    result = verdict(program)
    assert result.ok, result.problems
    assert result.placements == []


# ---- AKS node shapes --------------------------------------------------------------------------------------
def _on_one_aks_node(vm_size: str, requests: dict):
    def program():
        provider = aks_cluster(pools=({"name": "cpu", "vm_size": vm_size, "count": 1},))
        job(provider, "wide", requests=requests)
    return verdict(program)


@pytest.mark.parametrize(("vm_size", "requests", "short"), [
    # Standard_D11_v2 is 2 vCPUs and 14 GiB, not 11 vCPUs; Standard_D8ls_v5 has 16 GiB (2 per vCPU), not 32.
    ("Standard_D11_v2", {"cpu": "6", "memory": "4Gi"}, "asks 6 CPU, a node has 1.9 CPU allocatable"),
    ("Standard_D8ls_v5", {"cpu": "2", "memory": "20Gi"}, "asks 20.0 GiB, a node has 11.9 GiB allocatable"),
])
def test_aks_pods_are_judged_against_the_vm_sizes_real_shape(vm_size, requests, short):
    result = _on_one_aks_node(vm_size, requests)
    [problem] = result.problems
    assert problem.object == "Job team/wide" and f"pool cpu: {short}" in problem.problem


def test_a_pod_that_fits_a_large_dv2_size_is_placed():
    """Standard_D14_v2 is 16 vCPUs and 112 GiB (it was read as 14 vCPUs and 56 GiB)."""
    result = _on_one_aks_node("Standard_D14_v2", {"cpu": "12", "memory": "60Gi"})
    assert result.ok, result.problems
    assert [(p.pool, p.nodes) for p in result.placements if p.workload == "Job team/wide"] == [("cpu", 1)]

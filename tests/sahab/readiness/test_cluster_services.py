"""What a cluster must run for our objects to work: a CNI, storage provisioners, an autoscaler for pools that
start empty, a NetworkPolicy enforcer, Kueue for queued jobs. Each: broken, and the same cluster fixed."""

import pytest
from sahab.components.fleet_config import NodePool

from tests.sahab.readiness.builders import (
    aks_cluster,
    eks_cluster,
    gpu_operator,
    job,
    kueue_queues,
    node_group,
    onprem_cluster,
    onprem_node,
    onprem_pool,
    platform,
    release,
    verdict,
)

CPU = NodePool(name="cpu", cluster="lab", hosts=("h1",), min_size=1, max_size=1)
SMALL_JOB = {"cpu": "1", "memory": "1Gi"}


def _problems(result, text):
    return [p for p in result.problems if text in p.problem]


# ---- CNI ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cni", ["cilium", "calico", None])
def test_a_kubeadm_cluster_needs_a_cni(cni):
    def program():
        provider = onprem_cluster("lab", [onprem_pool(CPU, [onprem_node("h1")])], cni=cni)
        job(provider, "hello", requests=SMALL_JOB)
    result = verdict(program)
    if cni:
        assert result.ok, result.problems
    else:
        [problem] = result.problems
        assert (problem.cluster, problem.object) == ("lab", "cluster lab")
        assert problem.problem.startswith("no CNI")


def test_an_eks_cluster_without_the_vpc_cni_addon_has_no_cni():
    def program():
        cluster, provider = eks_cluster(addons=("kube-proxy",))
        node_group(cluster, "cpu", "m6i.xlarge")
        job(provider, "hello", requests=SMALL_JOB)
    [problem] = verdict(program).problems
    assert problem.object == "cluster c1" and "vpc-cni" in problem.problem


# ---- storage --------------------------------------------------------------------------------------------
def test_claims_need_an_existing_class_backed_by_a_provisioner_on_that_cluster():
    def program():
        cluster, provider = eks_cluster(addons=("vpc-cni",))  # no EBS CSI driver
        node_group(cluster, "cpu", "m6i.xlarge")
        platform(provider, "eks", (NodePool(name="cpu", cluster="c1", instance_type="m6i.xlarge"),))
        job(provider, "typo", requests=SMALL_JOB, volumes=True, claim_class="sahab-encrypted-typo")
        job(provider, "default", requests=SMALL_JOB, volumes=True, claim_class=None)
    problems = {p.object: p.problem for p in verdict(program).problems}
    assert "StorageClass sahab-encrypted-typo does not exist" in problems["Job team/typo volume data"]
    # The platform's class is the default one, but nothing provisions EBS volumes.
    assert "StorageClass sahab-encrypted (ebs.csi.aws.com): no EBS CSI driver" in \
        problems["Job team/default volume data"]
    prometheus = next(k for k in problems if k.startswith("Helm release kube-prometheus-stack"))
    assert "prometheus.prometheusSpec.storageSpec" in prometheus


def test_with_the_ebs_csi_addon_the_same_claims_bind():
    def program():
        cluster, provider = eks_cluster()
        node_group(cluster, "cpu", "m6i.xlarge")
        platform(provider, "eks", (NodePool(name="cpu", cluster="c1", instance_type="m6i.xlarge"),))
        job(provider, "default", requests=SMALL_JOB, volumes=True, claim_class=None)
    result = verdict(program)
    assert result.ok, result.problems


def test_an_onprem_class_needs_its_provisioner_running():
    def program():
        provider = onprem_cluster("lab", [onprem_pool(CPU, [onprem_node("h1")])])
        job(provider, "ckpt", requests=SMALL_JOB, volumes=True, claim_class="sahab-encrypted")
    [problem] = verdict(program).problems
    assert "StorageClass sahab-encrypted does not exist" in problem.problem

    def with_platform():
        provider = onprem_cluster("lab", [onprem_pool(CPU, [onprem_node("h1")])])
        platform(provider, "onprem", (CPU,))
        job(provider, "ckpt", requests=SMALL_JOB, volumes=True, claim_class="sahab-encrypted")
    assert verdict(with_platform).ok


def test_aks_builtin_disk_classes_are_backed():
    def program():
        provider = aks_cluster(pools=({"name": "cpu", "vm_size": "Standard_D8s_v5", "count": 2},))
        job(provider, "ckpt", requests=SMALL_JOB, volumes=True, claim_class="managed-csi")
    assert verdict(program).ok


# ---- autoscaler -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("autoscaler", ["cluster-autoscaler", "karpenter", None])
def test_an_eks_pool_that_starts_empty_needs_an_autoscaler(autoscaler):
    def program():
        cluster, provider = eks_cluster()
        node_group(cluster, "cpu", "m6i.xlarge")
        node_group(cluster, "burst", "g5.2xlarge", min_size=0, max_size=4,
                   taints=({"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"},))
        if autoscaler:
            release(provider, autoscaler, "kube-system")
    result = verdict(program)
    if autoscaler:
        assert result.ok, result.problems
    else:
        [problem] = result.problems
        assert problem.object == "node group burst"
        assert "scales from zero but no autoscaler" in problem.problem


def test_without_an_autoscaler_pods_only_get_the_nodes_a_group_starts_with():
    def program():
        cluster, provider = eks_cluster()
        node_group(cluster, "cpu", "m6i.xlarge", min_size=1, max_size=4)
        job(provider, "wide", requests={"cpu": "3", "memory": "4Gi"}, parallelism=3)
    [problem] = verdict(program).problems
    assert "needs 3 pods (as many per node as fit) but only 1 fit: pool cpu up to 1 node(s)" in problem.problem


def test_a_burst_stack_is_judged_with_the_stack_that_owns_the_cluster():
    """Pools added to a referenced cluster scale when the owning stack runs the autoscaler there."""
    def owner(autoscaler: bool):
        def program():
            cluster, provider = eks_cluster("main")
            node_group(cluster, "cpu", "m6i.xlarge")
            if autoscaler:
                release(provider, "cluster-autoscaler", "kube-system")
        return program

    def burst():
        import pulumi_aws as aws
        aws.eks.NodeGroup("burst-ng", cluster_name="main", node_role_arn="arn:aws:iam::111122223333:role/node",
                          subnet_ids=["subnet-1"], instance_types=["g5.12xlarge"],
                          scaling_config={"min_size": 0, "max_size": 8, "desired_size": 0},
                          labels={"sahab.io/pool": "burst"})
    assert verdict(burst, referenced=owner(autoscaler=True)).ok
    [problem] = verdict(burst, referenced=owner(autoscaler=False)).problems
    assert (problem.cluster, problem.object) == ("main", "node group burst")
    # Alone, the burst plan shows the pool but not what runs on its cluster: no autoscaler seen either.
    assert not verdict(burst).ok


# ---- NetworkPolicy ----------------------------------------------------------------------------------------
def _no_monitoring():
    from sahab.components.fleet_config import Monitoring
    return Monitoring(enabled=False)


@pytest.mark.parametrize("enforced", [True, False])
def test_eks_network_policies_need_the_vpc_cni_policy_agent(enforced):
    def program():
        cluster, provider = eks_cluster(enforce_policies=enforced)
        node_group(cluster, "cpu", "m6i.xlarge")
        platform(provider, "eks", (NodePool(name="cpu", cluster="c1", instance_type="m6i.xlarge"),),
                 monitoring=_no_monitoring())
    result = verdict(program)
    assert result.ok is enforced
    if not enforced:
        [problem] = result.problems
        assert problem.object.startswith("NetworkPolicy team/")
        assert "enableNetworkPolicy" in problem.problem


@pytest.mark.parametrize("policy", ["cilium", "azure", None])
def test_aks_network_policies_need_a_network_policy_engine(policy):
    def program():
        provider = aks_cluster(network_policy=policy,
                               pools=({"name": "cpu", "vm_size": "Standard_D8s_v5", "count": 2},))
        platform(provider, "aks", (NodePool(name="cpu", cluster="a1", instance_type="Standard_D8s_v5"),),
                 monitoring=_no_monitoring())
    result = verdict(program)
    assert result.ok is (policy is not None)
    if policy is None:
        assert "networkProfile.networkPolicy is not set" in result.problems[0].problem


def test_onprem_network_policies_need_cilium_or_calico():
    def program():
        provider = onprem_cluster("lab", [onprem_pool(CPU, [onprem_node("h1")])], cni="flannel")
        platform(provider, "onprem", (CPU,), monitoring=_no_monitoring())
    [problem] = verdict(program).problems
    assert "NetworkPolicies enforce nothing: no cilium or calico" in problem.problem


# ---- Kueue -------------------------------------------------------------------------------------------------
QUEUED = {"kueue.x-k8s.io/queue-name": "training"}
GPU_JOB = {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}
GPU_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
T4 = NodePool(name="t4", cluster="c1", accelerator="t4", instance_type="g4dn.12xlarge", min_size=2, max_size=2)


def _queued(*, kueue=True, local_queue="training", cluster_queue_exists=True, quota=None, flavor_labels=None):
    def program():
        cluster, provider = eks_cluster()
        node_group(cluster, "cpu", "m6i.xlarge")
        node_group(cluster, "t4", "g4dn.12xlarge", min_size=2, max_size=2, labels=T4.node_labels,
                   taints=({"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"},))
        pools = (NodePool(name="cpu", cluster="c1", instance_type="m6i.xlarge"), T4)
        if kueue:
            platform(provider, "eks", pools, monitoring=_no_monitoring())  # the Platform installs Kueue
            release(provider, "kueue", "kueue-system")
        else:
            gpu_operator(provider, "eks", pools)  # the GPU enablement the Platform brings, without its Kueue
        kueue_queues(provider, local_queue=local_queue, cluster_queue_exists=cluster_queue_exists,
                     quota=quota or {"cpu": 64, "memory": "256Gi", "nvidia.com/gpu": 8},
                     flavor_labels=flavor_labels)
        job(provider, "queued", requests=GPU_JOB, parallelism=8, labels=QUEUED, tolerations=GPU_TOLERATION,
            node_selector={"sahab.io/pool": "t4"})
    return verdict(program)


def test_a_queued_job_whose_queue_admits_it_is_ready():
    result = _queued(flavor_labels={"sahab.io/pool": "t4"})
    assert result.ok, result.problems
    assert ("Job team/queued", "t4", 2) in {(p.workload, p.pool, p.nodes) for p in result.placements}


@pytest.mark.parametrize(("broken", "says"), [
    ({"kueue": False}, "Kueue is not installed"),
    ({"local_queue": "other"}, "namespace team has no LocalQueue of that name"),
    ({"cluster_queue_exists": False}, "points to ClusterQueue cq, which does not exist"),
    ({"quota": {"cpu": 64, "memory": "256Gi", "nvidia.com/gpu": 4}},
     "cannot admit the whole job (8 pods): flavor default: 8 nvidia.com/gpu > quota 4 nvidia.com/gpu"),
    ({"quota": {"cpu": 64, "memory": "256Gi"}}, "it covers no nvidia.com/gpu"),
    ({"flavor_labels": {"sahab.io/pool": "cpu"}}, "flavor default's node labels match none of the job's pools"),
])
def test_a_queued_job_stays_suspended_when_kueue_cannot_admit_it(broken, says):
    problems = _queued(**broken).problems
    assert len(problems) == 1, problems
    assert says in problems[0].problem

"""Scale from zero on EKS (autoscaler, its IAM, node-template tags) and the schema's refusals for settings
that cannot schedule or burst."""

from __future__ import annotations

import json

import pytest
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import NodePool, parse_fleet
from sahab.components.pool_plan import autoscaler_node_template_tags

from tests.fleets import stack_fleet
from tests.plans import stack_plan

TEMPLATE = "k8s.io/cluster-autoscaler/node-template"


@pytest.fixture(scope="module")
def prod():
    return stack_plan("prod")


def test_every_created_eks_cluster_runs_a_pinned_autoscaler_with_its_own_role(prod):
    releases = [r for r in prod.resources if r.type == "kubernetes:helm.sh/v3:Release"
                and r.inputs["chart"].endswith("/cluster-autoscaler")]
    assert len(releases) == 1 and releases[0].provider.endswith("::sahab-eks-main-k8s")
    values = releases[0].inputs["values"]
    assert releases[0].inputs["version"] and values["autoDiscovery"]["clusterName"] == "sahab-eks-main"
    role_arn = values["rbac"]["serviceAccount"]["annotations"]["eks.amazonaws.com/role-arn"]
    role = next(r for r in prod.resources if r.type == "aws:iam/role:Role" and "autoscaler" in r.name)
    assert role.name in role_arn
    trust = json.loads(role.inputs["assumeRolePolicy"])["Statement"][0]
    subjects = [v for k, v in trust["Condition"]["StringEquals"].items() if k.endswith(":sub")]
    assert subjects == ["system:serviceaccount:kube-system:cluster-autoscaler"]


def test_the_autoscalers_writes_are_scoped_to_the_clusters_own_groups(prod):
    policy = next(r for r in prod.resources if r.type == "aws:iam/rolePolicy:RolePolicy" and "autoscaler" in r.name)
    statements = json.loads(policy.inputs["policy"])["Statement"]
    for statement in statements:
        writes = [a for a in statement["Action"] if not a.split(":")[1].startswith(("Describe", "Get"))]
        if writes:
            assert statement["Resource"] != "*"
            assert "autoScalingGroupName/eks-*" in statement["Resource"]
            assert statement["Condition"]["StringEquals"][
                "aws:ResourceTag/k8s.io/cluster-autoscaler/sahab-eks-main"] == "owned"
    assert any("autoscaling:SetDesiredCapacity" in s["Action"] for s in statements)


def test_a_gpu_pool_at_zero_tells_the_autoscaler_its_labels_taints_and_gpus():
    pool = NodePool(name="burst-a10g", cluster="eks", accelerator="a10g", min_size=0, max_size=4, gpus_per_node=4)
    tags = autoscaler_node_template_tags(pool)
    assert tags[f"{TEMPLATE}/label/sahab.io/pool"] == "burst-a10g"
    assert tags[f"{TEMPLATE}/taint/nvidia.com/gpu"] == "present:NoSchedule"
    assert tags[f"{TEMPLATE}/resources/nvidia.com/gpu"] == "4"
    shared = NodePool(name="ts", cluster="eks", accelerator="a10g", gpus_per_node=4, time_slicing_replicas=4)
    assert autoscaler_node_template_tags(shared)[f"{TEMPLATE}/resources/nvidia.com/gpu"] == "16"
    assert not any("/resources/" in k for k in autoscaler_node_template_tags(NodePool(name="cpu", cluster="eks")))


def test_the_burst_stacks_node_groups_are_tagged_on_their_autoscaling_groups():
    burst = stack_plan("burst")
    tags = [r.inputs for r in burst.resources if r.type == "aws:autoscaling/tag:Tag"]
    keys = {(t["autoscalingGroupName"].split("-ng-")[0], t["tag"]["key"]) for t in tags}
    assert ("eks-sahab-burst-burst-a10g", f"{TEMPLATE}/resources/nvidia.com/gpu") in keys
    assert all(t["tag"]["propagateAtLaunch"] is False for t in tags)


def test_prods_time_sliced_a100_pool_trains_one_slice_per_worker(prod):
    job = next(r for r in prod.resources if r.type == "kubernetes:batch/v1:Job"
               and r.inputs["metadata"]["name"] == "train-dxb-a100")
    container = job.inputs["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["SAHAB_NPROC_PER_NODE"] == "1"


def test_cpu_training_pods_are_guaranteed_with_threads_from_their_request(prod):
    job = next(r for r in prod.resources if r.type == "kubernetes:batch/v1:Job"
               and r.inputs["metadata"]["name"] == "train-dxb-cpu")
    container = job.inputs["spec"]["template"]["spec"]["containers"][0]
    resources = container["resources"]
    assert resources["requests"] == resources["limits"]
    assert resources["requests"]["cpu"].isdigit()
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["OMP_NUM_THREADS"] == resources["requests"]["cpu"]


def _with_pool(**changes):
    fleet = stack_fleet("prod")
    pool = next(p for p in fleet["node_pools"] if p["name"] == "dxb-a100")
    pool.update(changes)
    return fleet


def test_the_schema_refuses_whole_gpus_on_a_time_sliced_pool():
    with pytest.raises(ConfigError, match=r"node_pools\[2\]\.gpus_per_worker: 8 GPUs per worker on a time-sliced"):
        parse_fleet(_with_pool(gpus_per_worker=8))
    assert parse_fleet(_with_pool(gpus_per_worker=1)).node_pools[2].worker_gpus == 1


def test_the_schema_refuses_time_slicing_with_mixed_mig():
    with pytest.raises(ConfigError, match=r"time_slicing_replicas: .*mig_strategy none or single"):
        parse_fleet(_with_pool(mig_strategy="mixed"))


def test_the_schema_refuses_more_gpus_per_worker_than_a_node_has():
    fleet = stack_fleet("prod")
    fleet["node_pools"][0]["gpus_per_worker"] = 9
    with pytest.raises(ConfigError, match=r"node_pools\[0\]\.gpus_per_worker: 9 GPUs per worker on nodes with 8"):
        parse_fleet(fleet)


@pytest.mark.parametrize(("change", "message"), [
    ({"manager": "eks-main"}, r"burst\.manager: 'eks-main' is not an onprem cluster"),
    ({"workers": ["auh-onprem"]}, r"burst\.workers\[0\]: 'auh-onprem' is not an eks/aks cluster"),
    ({"workers": []}, r"burst\.workers: at least one"),
    ({"workers": ["eks-main", "eks-main"]}, r"burst\.workers: each worker once"),
])
def test_the_schema_refuses_a_burst_that_cannot_dispatch(change, message):
    fleet = stack_fleet("burst")
    fleet["burst"].update(change)
    with pytest.raises(ConfigError, match=message):
        parse_fleet(fleet)


def test_a_manager_whose_job_controller_ignores_managed_by_is_refused():
    fleet = stack_fleet("burst")
    index = next(i for i, c in enumerate(fleet["clusters"]) if c["name"] == fleet["burst"]["manager"])
    fleet["clusters"][index]["kubernetes_version"] = "1.31"
    with pytest.raises(ConfigError, match=rf"clusters\[{index}\]\.kubernetes_version: 1.31 cannot be the MultiKueue "
                                          r"manager: .* from 1.32"):
        parse_fleet(fleet)
    fleet["clusters"][index]["kubernetes_version"] = "1.32"
    assert parse_fleet(fleet).burst.manager == fleet["burst"]["manager"]


def test_a_worker_without_burst_pools_is_refused():
    fleet = stack_fleet("burst")
    fleet["node_pools"] = [p for p in fleet["node_pools"] if p["cluster"] != "aks-main"]
    with pytest.raises(ConfigError, match=r"burst\.workers\[1\]: 'aks-main' has no node pools"):
        parse_fleet(fleet)


def test_on_prem_pools_cannot_join_a_borrowed_on_prem_cluster():
    fleet = stack_fleet("burst")
    fleet["node_pools"].append({"name": "auh-extra", "cluster": "auh-onprem", "hosts": ["auh-gpu3"]})
    with pytest.raises(ConfigError, match=r"node_pools\[3\]\.cluster: 'auh-onprem' comes from another stack"):
        parse_fleet(fleet)


def test_eks_training_reaches_only_its_teams_prefix_of_the_checkpoint_bucket_and_its_key(prod):
    policy = next(r for r in prod.resources if r.type == "aws:iam/rolePolicy:RolePolicy"
                  and r.name == "sahab-eks-main-research-checkpoints-policy")
    statements = {s["Sid"]: s for s in json.loads(policy.inputs["policy"])["Statement"]}
    bucket = next(r for r in prod.resources if r.type == "aws:s3/bucket:Bucket" and "checkpoints" in r.name)
    assert statements["ReadWriteOwnPrefix"]["Resource"] == f"arn:aws:s3:::{bucket.id}/research/*"
    assert statements["ListOwnPrefix"]["Condition"]["StringLike"]["s3:prefix"] == ["research/*", "research"]
    key = statements["UseBucketKey"]
    assert key["Resource"].startswith("arn:aws:kms:me-central-1:") and key["Action"] == ["kms:Decrypt",
                                                                                         "kms:GenerateDataKey"]
    assert key["Condition"]["StringEquals"]["kms:ViaService"] == "s3.me-central-1.amazonaws.com"
    account = next(r for r in prod.resources if r.type == "kubernetes:core/v1:ServiceAccount"
                   and r.name == "sahab-eks-main-research-checkpoints-sa")
    assert account.inputs["metadata"]["annotations"]["eks.amazonaws.com/role-arn"].startswith("arn:aws:iam::")
    # On-prem pools keep a per-pod volume of the encrypted class.
    job = next(r for r in prod.resources if r.type == "kubernetes:batch/v1:Job"
               and r.inputs["metadata"]["name"] == "train-auh-h100")
    env = {e["name"]: e.get("value") for e in job.inputs["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["SAHAB_CHECKPOINT_DIR"] == "/checkpoints"


def test_training_jobs_refuse_a_cluster_whose_api_server_would_drop_their_success_policy():
    """On Kubernetes 1.30 `successPolicy` is silently dropped: a run would wait on failed nodes' indexes."""
    from sahab.components.errors import ConfigError
    from sahab.components.fleet_config import parse_fleet

    from tests.fleets import stack_fleet

    fleet = stack_fleet("prod")
    index = next(i for i, c in enumerate(fleet["clusters"]) if c["kind"] == "eks")
    fleet["clusters"][index]["kubernetes_version"] = "1.30"
    with pytest.raises(ConfigError, match=rf"clusters\[{index}\]\.kubernetes_version.*1\.31 or later"):
        parse_fleet(fleet)
    fleet["workload"]["enabled"] = False  # without training Jobs, 1.30 is fine
    assert parse_fleet(fleet).cluster(fleet["clusters"][index]["name"]).kubernetes_version == "1.30"

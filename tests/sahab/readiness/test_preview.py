"""Under a preview (what `sahab plan` runs) values the providers compute are the engine's unknown sentinel.
Unknown means cannot judge: an input a preview does not know never by itself makes a fleet "not ready"."""

import copy

import pytest
from sahab.components.fleet_config import NodePool

from sahab.engine import UNKNOWN
from sahab.readiness import judge
from tests.sahab.readiness.builders import (
    eks_cluster,
    job,
    kueue_queues,
    node_group,
    planned,
    platform,
)

T4 = NodePool(name="t4", cluster="c1", accelerator="t4", instance_type="g4dn.12xlarge", min_size=2, max_size=2)
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}
CONTAINER = ("spec", "template", "spec", "containers", 0)


def _ready_cluster():
    """An EKS cluster with a CPU and a T4 pool, the Platform (GPU operator, Kueue, team NetworkPolicies), a
    ClusterQueue for the T4 flavor, and a queued 8-pod GPU Job with a checkpoint claim: ready as planned."""
    cluster, provider = eks_cluster()
    node_group(cluster, "cpu", "m6i.xlarge")
    node_group(cluster, "t4", "g4dn.12xlarge", min_size=2, max_size=2, labels=T4.node_labels, taints=(GPU_TAINT,))
    platform(provider, "eks", (NodePool(name="cpu", cluster="c1", instance_type="m6i.xlarge"), T4))
    kueue_queues(provider, quota={"cpu": 64, "memory": "256Gi", "nvidia.com/gpu": 8},
                 flavor_labels={"sahab.io/pool": "t4"})
    job(provider, "queued", requests={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}, parallelism=8,
        labels={"kueue.x-k8s.io/queue-name": "training"}, node_selector={"sahab.io/pool": "t4"},
        tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        volumes=True, claim_class="sahab-encrypted")


# (resource type, resource name, path to the input, a known value that is not ready, the problem it gives)
CASES = [
    ("batch/v1:Job", "queued", ("spec", "template", "spec", "nodeSelector", "sahab.io/pool"), "cpu",
     "no node pool fits its pods"),
    ("batch/v1:Job", "queued", (*CONTAINER, "resources", "requests", "nvidia.com/gpu"), "5",
     "no node pool fits its pods"),
    ("batch/v1:Job", "queued", ("spec", "parallelism"), 9, "needs 9 pods"),
    ("batch/v1:Job", "queued", ("metadata", "labels", "kueue.x-k8s.io/queue-name"), "other",
     "no LocalQueue of that name"),
    ("batch/v1:Job", "queued", ("spec", "template", "spec", "volumes", 0, "ephemeral", "volumeClaimTemplate", "spec",
                                "storageClassName"), "typo", "StorageClass typo does not exist"),
    ("eks/nodeGroup:NodeGroup", "t4-ng", ("labels", "sahab.io/pool"), "other", "no node pool fits its pods"),
    ("eks/nodeGroup:NodeGroup", "t4-ng", ("labels",), {"sahab.io/pool": "other"}, "no node pool fits its pods"),
    ("eks/nodeGroup:NodeGroup", "t4-ng", ("scalingConfig", "desiredSize"), 1, "needs 8 pods"),
    ("eks/nodeGroup:NodeGroup", "t4-ng", ("clusterName",), "elsewhere", "no node pool fits its pods"),
    ("eks/addon:Addon", "c1-vpc-cni", ("configurationValues",), "{}", "NetworkPolicies enforce nothing"),
    ("kueue.x-k8s.io/v1beta1:ClusterQueue", "cq",
     ("spec", "resourceGroups", 0, "flavors", 0, "resources", 2, "nominalQuota"), 4, "> quota 4 nvidia.com/gpu"),
    ("kueue.x-k8s.io/v1beta1:ResourceFlavor", "flavor", ("spec", "nodeLabels", "sahab.io/pool"), "cpu",
     "node labels match none of the job's pools"),
    ("kueue.x-k8s.io/v1beta1:LocalQueue", "lq", ("spec", "clusterQueue"), "gone", "which does not exist"),
    ("helm.sh/v3:Release", "eks-platform-gpu-release", ("chart",), "something-else",
     "no NVIDIA device plugin on the cluster"),
]


def _with(resources, type_, name, path, value):
    changed = []
    for res in resources:
        if res.type.endswith(type_) and res.name == name:
            res = copy.deepcopy(res)
            data = res.inputs
            for step in path[:-1]:
                data = data[step]
            data[path[-1]] = value
            if value != UNKNOWN:  # a known literal comes from no other resource
                res.property_dependencies.pop(path[0], None)
        changed.append(res)
    assert changed != resources, f"{type_} {name} is not in the plan"
    return changed


@pytest.mark.parametrize(("type_", "name", "path", "known", "says"), CASES,
                         ids=[f"{c[1]}:{'.'.join(map(str, c[2]))}" for c in CASES])
def test_an_unknown_input_never_makes_the_fleet_not_ready(type_, name, path, known, says):
    resources = planned(_ready_cluster)
    assert judge(resources).ok, judge(resources).problems
    # The input matters: this known value makes the fleet not ready...
    problems = judge(_with(resources, type_, name, path, known)).problems
    assert any(says in p.problem for p in problems), problems
    # ...while the preview's unknown in its place is no verdict, never a false "not ready".
    result = judge(_with(resources, type_, name, path, UNKNOWN))
    assert result.ok, result.problems

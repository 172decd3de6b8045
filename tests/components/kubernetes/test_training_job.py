"""Training Jobs in prod's plan: one validated, elastic, schema-valid Indexed Job per node pool."""

import re

import pytest
import yaml
from sahab.components.kubernetes.node_validator import VALIDATION_LABEL
from sahab.components.kubernetes.training_job import rendezvous_min_nodes

from tests.components.kubernetes.manifests import manifest, validate
from tests.fleets import ROOT
from tests.plans import stack_plan


@pytest.fixture(scope="module")
def prod():
    return stack_plan("prod")


def _jobs(prod):
    return {r.inputs["metadata"]["name"]: r for r in prod.resources if r.type == "kubernetes:batch/v1:Job"}


def test_every_pool_with_nodes_gets_one_job_sized_to_its_nodes(prod):
    jobs = _jobs(prod)
    assert set(jobs) == {f"train-{p}" for p in ("auh-h100", "auh-cpu", "dxb-a100", "dxb-cpu", "eks-l40s",
                                                    "eks-cpu", "aks-h100", "aks-cpu")}
    spec = jobs["train-auh-h100"].inputs["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["completions"] == spec["parallelism"] == 2
    assert not validate(manifest(jobs["train-auh-h100"]))


def _env(container):
    return {e["name"]: e.get("value") for e in container["env"]}


def test_gpu_jobs_request_every_gpu_of_the_node_and_tolerate_the_gpu_taint(prod):
    pod = _jobs(prod)["train-auh-h100"].inputs["spec"]["template"]["spec"]
    train = pod["containers"][0]
    assert train["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert _env(train)["SAHAB_NPROC_PER_NODE"] == "8"
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"} \
        in pod["tolerations"]
    cpu_pod = _jobs(prod)["train-auh-cpu"].inputs["spec"]["template"]["spec"]
    assert "nvidia.com/gpu" not in cpu_pod["containers"][0]["resources"]["limits"]
    assert _env(cpu_pod["containers"][0])["SAHAB_NPROC_PER_NODE"] == "1"
    assert cpu_pod["tolerations"] == []


def test_the_image_entrypoint_trains_with_rendezvous_on_the_first_pod(prod):
    job = _jobs(prod)["train-eks-l40s"]
    pod = job.inputs["spec"]["template"]["spec"]
    train = pod["containers"][0]
    assert train["command"] == ["sahab-entrypoint", "train", "--steps", "1000", "--checkpoint-every", "100",
                                "--preset", "auto"]
    env = _env(train)
    assert env["SAHAB_RDZV_ENDPOINT"] == "train-eks-l40s-0.train-eks-l40s-rdzv:29500"
    assert env["SAHAB_NNODES"] == "1:2"  # elastic: trains on the nodes that passed
    # EKS with prod's checkpoints bucket: the team's prefix of it, through the pods' workload identity.
    assert env["SAHAB_CHECKPOINT_DIR"].startswith("s3://sahab-checkpoints-bucket-")
    assert env["SAHAB_CHECKPOINT_DIR"].endswith("/research/train-eks-l40s")
    assert pod["serviceAccountName"] == "checkpoint-writer"
    assert pod["subdomain"] == "train-eks-l40s-rdzv"
    service = next(r for r in prod.resources if r.type == "kubernetes:core/v1:Service"
                   and r.inputs["metadata"]["name"] == "train-eks-l40s-rdzv")
    assert service.inputs["spec"]["clusterIP"] == "None"
    assert service.inputs["spec"]["publishNotReadyAddresses"] is True


def test_the_image_reads_every_variable_the_job_sets(prod):
    """The Job and the image (its entrypoint and the workloads package it runs) agree on the contract: no
    variable set that the image ignores."""
    image = "\n".join(p.read_text() for p in [ROOT / "workloads" / "entrypoint.sh",
                                               *(ROOT / "workloads").rglob("*.py")])
    train = _jobs(prod)["train-eks-l40s"].inputs["spec"]["template"]["spec"]["containers"][0]
    for name in _env(train):
        if name.startswith("SAHAB_"):
            assert re.search(rf"\b{name}\b", image), name


def test_pods_land_only_on_nodes_the_validator_passed_and_gate_without_writing(prod):
    pod = _jobs(prod)["train-aks-h100"].inputs["spec"]["template"]["spec"]
    (init,) = pod["initContainers"]
    # The in-pod gate only measures: no shell, no labeller, no API token to write with.
    assert init["name"] == "validate" and init["command"] == ["sahab-entrypoint", "validate"]
    # prod's AKS pods write checkpoints to Blob as `checkpoint-writer` (workload identity injects its own token).
    assert pod["automountServiceAccountToken"] is False and pod["serviceAccountName"] == "checkpoint-writer"
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert {"key": VALIDATION_LABEL, "operator": "In", "values": ["passed"]} in terms[0]["matchExpressions"]
    assert {"key": "sahab.io/pool", "operator": "In", "values": ["aks-h100"]} in terms[0]["matchExpressions"]
    anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert anti["topologyKey"] == "kubernetes.io/hostname"


def test_an_index_that_could_not_judge_its_node_fails_alone_and_drains_are_not_counted(prod):
    rules = _jobs(prod)["train-auh-h100"].inputs["spec"]["podFailurePolicy"]["rules"]
    assert {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]} in rules
    assert {"action": "FailIndex", "onExitCodes": {"containerName": "validate", "operator": "In",
                                                   "values": [2]}} in rules


def test_pods_are_restricted_and_checkpoint_to_the_encrypted_class(prod):
    job = _jobs(prod)["train-dxb-cpu"]
    pod = job.inputs["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    for container in pod["containers"] + pod["initContainers"]:
        ctx = container["securityContext"]
        assert ctx["allowPrivilegeEscalation"] is False and ctx["capabilities"] == {"drop": ["ALL"]}
    volume = next(v for v in pod["volumes"] if v["name"] == "checkpoints")
    assert volume["ephemeral"]["volumeClaimTemplate"]["spec"]["storageClassName"] == "sahab-encrypted"
    assert pod["priorityClassName"] == "sahab-training-critical"  # prod's workload team, research


@pytest.mark.parametrize(("nodes", "fraction", "expected"), [(1, 0.5, 1), (2, 0.5, 1), (3, 0.5, 2), (8, 1.0, 8),
                                                              (5, 0.2, 1), (4, 0.01, 1)])
def test_rendezvous_waits_for_the_configured_share_of_nodes(nodes, fraction, expected):
    assert rendezvous_min_nodes(nodes, fraction) == expected



def test_kueue_lets_a_running_elastic_job_lose_a_node_and_never_blocks_other_queues(prod):
    """waitForPodsReady still requeues a gang that never starts, but neither holds every queue while a burst gang
    waits for nodes nor evicts a run `timeout` after one index failed for good (maxFailedIndexes)."""
    releases = [r for r in prod.resources if r.type == "kubernetes:helm.sh/v3:Release"
                and str(r.inputs.get("chart", "")).endswith("/kueue")]
    assert releases
    for release in releases:
        config = yaml.safe_load(release.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])
        wait = config["waitForPodsReady"]
        assert wait["blockAdmission"] is False
        assert _seconds(wait["recoveryTimeout"]) >= 12 * _seconds(wait["timeout"])


def _seconds(duration: str) -> int:
    return int(duration[:-1]) * {"s": 1, "m": 60, "h": 3600}[duration[-1]]


def test_a_multi_node_run_without_a_checkpoint_store_is_warned_about(prod):
    """Per-pod volumes go with their pods and each holds one node's shards: `pulumi up` says so, naming the Job;
    a run that writes to a bucket is not warned about."""
    warned = {w.split(":", 1)[0] for w in prod.warnings if "per-pod volumes" in w}
    on_volumes = {name for name, job in _jobs(prod).items() if job.inputs["spec"]["parallelism"] > 1
                  and _env(job.inputs["spec"]["template"]["spec"]["containers"][0])["SAHAB_CHECKPOINT_DIR"]
                  == "/checkpoints"}
    assert warned == on_volumes and on_volumes  # prod's on-prem sites have no object store
    assert not {name for name in warned if name.startswith(("train-eks", "train-aks"))}


def _gi(quantity: str) -> float:
    return float(quantity[:-2]) / (1024 if quantity.endswith("Mi") else 1)


def _shm(pod: dict) -> dict | None:
    volume = next((v for v in pod["volumes"] if v["name"] == "dshm"), None)
    return volume and volume["emptyDir"]


def test_every_gpu_pod_that_runs_nccl_has_a_memory_backed_dev_shm_counted_in_its_limit(prod):
    """NVIDIA/nccl#525: a container's 64 MiB /dev/shm breaks NCCL's shared-memory transport between a pod's
    GPUs. Training pods, their validation gate and the node validator's benchmarking pods all mount one."""
    gpu_pods = [job.inputs["spec"]["template"]["spec"] for name, job in _jobs(prod).items()
                if "nvidia.com/gpu" in job.inputs["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]]
    gpu_pods += [d.inputs["spec"]["template"]["spec"] for d in prod.resources
                 if d.type == "kubernetes:apps/v1:DaemonSet" and d.inputs["metadata"]["name"].startswith("validate-")
                 and "nvidia.com/gpu" in d.inputs["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]]
    assert len(gpu_pods) >= 8
    for pod in gpu_pods:
        shm = _shm(pod)
        assert shm and shm["medium"] == "Memory", pod
        for container in pod["containers"] + pod.get("initContainers", []):
            assert {"name": "dshm", "mountPath": "/dev/shm"} in container["volumeMounts"]
            # a memory-backed volume is charged to the pod: it must fit inside the memory limit
            assert _gi(shm["sizeLimit"]) < _gi(container["resources"]["limits"]["memory"])


def test_pod_cpu_and_memory_grow_with_the_gpus_a_pod_asks_for(prod):
    limits = {name: job.inputs["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
              for name, job in _jobs(prod).items()}
    one, four, eight = limits["train-aks-h100"], limits["train-eks-l40s"], limits["train-auh-h100"]
    assert (one["nvidia.com/gpu"], four["nvidia.com/gpu"], eight["nvidia.com/gpu"]) == ("1", "4", "8")
    assert int(one["cpu"]) < int(four["cpu"]) < int(eight["cpu"])
    assert _gi(one["memory"]) < _gi(four["memory"]) < _gi(eight["memory"])
    # Guaranteed QoS, and the worker threads split the pod's CPUs, not the host's
    pod = _jobs(prod)["train-eks-l40s"].inputs["spec"]["template"]["spec"]
    train = pod["containers"][0]
    assert train["resources"]["requests"] == train["resources"]["limits"]
    assert _env(train)["OMP_NUM_THREADS"] == str(int(four["cpu"]) // 4)


def test_pod_size_is_a_share_of_the_node_that_leaves_its_agents_room():
    from sahab.components.fleet_config import NodePool
    from sahab.components.kubernetes.training_job import NODE_SHARE, pod_size

    g6e = NodePool(name="l40s", cluster="c", accelerator="l40s", instance_type="g6e.12xlarge", gpus_per_node=4)
    cpu, memory = pod_size(g6e, 48, 384)  # 4 GPUs: the whole node's share, capped per GPU
    assert cpu <= 48 * NODE_SHARE and memory <= 384 * NODE_SHARE and cpu >= 16
    small = NodePool(name="t4", cluster="c", accelerator="t4", instance_type="g4dn.xlarge")
    cpu, memory = pod_size(small, 4, 16)  # a 4-vCPU, 16 GiB T4 node: the pod must still fit its allocatable
    assert cpu <= 3 and memory <= 12
    assert pod_size(small, None, None) == (4, 16)  # shape unknown: per GPU

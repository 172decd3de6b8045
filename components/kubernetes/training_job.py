"""TrainingJob: benchmark-validated distributed training on one node pool, as a queued Indexed Job.

One pod per node of the pool (pod anti-affinity on the hostname), running the image's entrypoint as its
contract in workloads/README.md describes. The Job is created suspended in the team's Kueue LocalQueue
(`kueue.x-k8s.io/queue-name`): Kueue admits it whole when the team's quota on the pool's flavor holds every
pod (gang admission; see components/kubernetes/kueue.py), and Pulumi does not wait for it to finish
(`pulumi.com/skipAwait`). A burst Job is queued on the MultiKueue manager instead (`spec.managedBy`); its pods
run on a worker cluster, where its rendezvous Service is created too.

Nodes are judged by the platform's node validator (components/kubernetes/node_validator.py), a system
DaemonSet that alone may label nodes: the pods' required node affinity admits only nodes labelled
`sahab.io/validation=passed`, so a node that failed (or is not judged yet) takes no training. Scale-from-zero
pools are the exception: the cluster autoscaler builds a new node from the pool's template, which cannot
carry a verdict, and would never scale up for a pod that requires one; there the pods only avoid nodes with
a verdict other than passed. The pods themselves have no rights on the API: they run as the team's
`training` account (or the checkpoint writer, whose cloud identity is a projected token of its own audience
that the cloud's webhook mounts), with `automountServiceAccountToken: false`. When `validate_nodes` is set an
init container still runs `sahab bench` as a gate that writes nothing: a node below its floors fails its
pod, the index is retried (backoffLimitPerIndex), and an index that could not judge its node (exit 2) fails at
once. Indexes that run out of retries are tolerated up to the elastic minimum (maxFailedIndexes), and the
run succeeds when the rendezvous host (index 0) completes (successPolicy). The
training container runs torchrun with c10d rendezvous hosted by the first pod (`<job>-0.<service>`), the node
rank from JOB_COMPLETION_INDEX, and an elastic node count (`MIN:N`).

Pods are Guaranteed: integer CPU requests equal to their limits, memory requests equal to limits, and the
worker threads sized from the CPU request (OMP_NUM_THREADS), not from the host's cores. Checkpoints go to the
object store URI when one is given (workload identity through the pod's service account), else to a per-pod
volume from the cluster's encrypted storage class.
"""

from __future__ import annotations

import math

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field
from sahab.components import pool_plan
from sahab.components.accelerators import LABEL_POOL
from sahab.components.fleet_config import NodePool, Team, Workload
from sahab.components.kubernetes.common import MANAGED_BY, Args, StrInput
from sahab.components.kubernetes.gpu_config import toleration_for
from sahab.components.kubernetes.kueue import QUEUE_LABEL
from sahab.components.kubernetes.node_validator import PASSED, VALIDATION_LABEL, VERDICTS
from sahab.components.kubernetes.priority_classes import priority_class_name
from sahab.components.kubernetes.team_namespace import RENDEZVOUS_PORT, TRAINING_SERVICE_ACCOUNT
from sahab.workloads.node_fabric import fabric_of

CHECKPOINT_DIR = "/checkpoints"  # validation results land here too, where the training step reads its peak
SCRATCH_DIR = "/scratch"  # validation results when checkpoints go to an object store
SKIP_AWAIT = {"pulumi.com/skipAwait": "true"}
VALIDATION_CONTAINER = "validate"
CANNOT_VALIDATE = 2  # `sahab bench` exit: the node could not be judged (bad baseline...); retrying elsewhere won't help
# The train container's exit when the rendezvous host (index 0) went (workloads/train/agent.py): not this pod's
# fault; retried uncounted, it waits for index 0's replacement and the group resumes from its last checkpoint.
RENDEZVOUS_LOST = 75
TRAIN_CONTAINER = "train"
ENTRYPOINT = "sahab-entrypoint"  # workloads/entrypoint.sh in the image
# UID/GID of the image's unprivileged user (workloads/Dockerfile*).
IMAGE_UID = 10001
EFA_RESOURCE = "vpc.amazonaws.com/efa"  # what AWS's EFA device plugin advertises


class TrainingJobArgs(Args):
    pool: NodePool
    """The pool to train on: one pod per node, GPU requests and tolerations from the pool."""
    team: Team
    """The team whose namespace, service quota and training tier the Job uses."""
    workload: Workload
    """Image, steps, checkpoint interval and whether nodes are validated first."""
    queue: str
    """The LocalQueue (in the team's namespace) the Job is submitted to, suspended. Required."""
    storage_class: StrInput | None = None
    """The cluster's encrypted storage class, for checkpoint volumes. Default: unset (needs checkpoint_uri)."""
    checkpoint_uri: StrInput | None = None
    """Where checkpoints go: `s3://bucket/prefix` or `az://container/prefix`, reached through the service
    account's workload identity. Default: unset (a per-pod volume of storage_class)."""
    service_account: str | None = None
    """Service account the pods run as (its workload identity reaches the checkpoint store); its API token is
    never mounted. Default: the team's `training` account."""
    nodes: int | None = Field(default=None, ge=1)
    """Nodes the Job spans, one pod each. Default: the pool's current size."""
    managed_by: str | None = None
    """`spec.managedBy`: `kueue.x-k8s.io/multikueue` when a MultiKueue manager dispatches the Job to a
    worker. Default: unset (the cluster's own Job controller runs it)."""
    run_on: tuple[pulumi.ProviderResource, ...] = ()
    """Providers of the clusters the pods run on when not the Job's own (MultiKueue workers): the rendezvous
    Service is created there. Default: none (the Job's own cluster)."""
    # -- checkpoint identity (components/{aws,azure,onprem}/checkpoint_access.py) ------------------------------
    checkpoint_env: tuple[dict, ...] = ()
    """Extra environment of the training container that reaches the checkpoint store (endpoint, account,
    credentials from a Secret). Default: none."""
    pod_labels: dict[str, str] = Field(default_factory=dict)
    """Extra pod labels the store's identity needs (AKS: `azure.workload.identity/use`). Default: none."""
    # ------------------------------------------------------------------------------------------------------
    checkpoint_size_gi: int = Field(default=50, ge=1)
    """Size of each pod's checkpoint volume. Default: 50 GiB."""
    min_nodes_fraction: float = Field(default=0.5, gt=0, le=1)
    """Train once at least this share of the Job's nodes passed validation and joined. Default: 0.5."""
    cpu: int | None = Field(default=None, ge=1)
    """Whole CPUs per pod, requested and limited alike (Guaranteed QoS); the worker threads are sized from it.
    Default: the pod's share of its node (pod_size)."""
    memory_gi: int | None = Field(default=None, ge=2)
    """Memory request and limit per pod, GiB, its /dev/shm included. Default: the pod's share of its node."""
    node_cpus: int | None = Field(default=None, ge=1)
    """CPUs of one node of the pool (catalog instance shape, on-prem host). Default: unknown (per-GPU sizes)."""
    node_memory_gib: float | None = Field(default=None, gt=0)
    """Memory of one node of the pool, GiB. Default: unknown (per-GPU sizes)."""
    backoff_limit_per_index: int = Field(default=2, ge=0)
    """Retries of one node slot (e.g. on another node after a failed validation). Default: 2."""

    @property
    def node_count(self) -> int:
        return self.nodes if self.nodes is not None else self.pool.size


def rendezvous_min_nodes(nodes: int, fraction: float) -> int:
    """Nodes the elastic rendezvous waits for before training starts."""
    return max(1, math.ceil(nodes * fraction))


def workers_per_pod(pool: NodePool) -> int:
    """torchrun workers in one pod: one per GPU (or GPU slice) it requests; one on a CPU node."""
    return pool.worker_gpus if pool.is_gpu else 1


# Of its share of a node's CPUs and memory a pod asks for this much: the rest is the kubelet's reserve and the
# node's agents (CNI, monitoring, device plugin, the validation watch), so the pods fit what is allocatable.
NODE_SHARE = 0.8
# Per worker when the node's shape is unknown: CPUs for the input pipeline and launch, memory for the model's
# host-side state (checkpoint staging, pinned batches); and at most this much per worker of a large node (the
# rest stays in the team's quota for its other Jobs).
CPU_PER_WORKER, MEMORY_GI_PER_WORKER = 4, 16
MAX_CPU_PER_WORKER, MAX_MEMORY_GI_PER_WORKER = 8, 32
# /dev/shm: a memory-backed volume, a part of the pod's memory (NCCL's shared-memory transport between the pod's
# GPUs allocates there, and Docker's default of 64 MiB breaks it: NVIDIA/nccl#525).
SHM_FRACTION, SHM_MIN_GI, SHM_MAX_GI = 0.25, 1, 64


def pod_size(pool: NodePool, node_cpus: int | None, node_memory_gib: float | None) -> tuple[int, int]:
    """Whole CPUs and GiB of memory of one training pod: on a GPU pool its share of the node (its GPUs of the
    node's GPU slots) when the node's shape is known, else a fixed amount per worker, so both grow with the GPUs
    the pod asks for; a CPU pool's pod gets the fixed amount of one worker (small on-prem quotas hold it)."""
    workers = workers_per_pod(pool)
    if pool.is_gpu and node_cpus and node_memory_gib:
        slots = (pool.gpus_per_node or workers) * (pool.time_slicing_replicas or 1)
        share = min(1.0, workers / max(1, slots)) * NODE_SHARE
        cpu = min(math.floor(node_cpus * share), MAX_CPU_PER_WORKER * workers)
        memory = min(math.floor(node_memory_gib * share), MAX_MEMORY_GI_PER_WORKER * workers)
        return max(1, cpu), max(2, memory)
    return CPU_PER_WORKER * workers, MEMORY_GI_PER_WORKER * workers


def node_shape(config, pool: NodePool) -> dict:
    """`node_cpus` and `node_memory_gib` of a pool's nodes for TrainingJobArgs: the catalog's instance shape on
    a cloud, the smallest of its hosts on-prem; empty when unknown. `config` is the FleetConfig."""
    if pool.hosts:
        hosts = [h for site in config.sites for h in site.hosts if h.name in pool.hosts]
        if not hosts:
            return {}
        return {"node_cpus": min(h.cpus for h in hosts), "node_memory_gib": min(h.memory_gib for h in hosts)}
    from sahab.components.kinds import get as kind_spec

    types = kind_spec(config.cluster(pool.cluster).kind).node_types  # the kind's node-type catalog
    if types is None:
        return {}
    instance_type = pool.instance_type or types.default(pool.accelerator)
    shape = types.shape(instance_type) if instance_type else None
    return {"node_cpus": shape.vcpus, "node_memory_gib": shape.memory_gib} if shape else {}


def shm_size_gi(memory_gi: int) -> int:
    """The pod's /dev/shm, counted in its memory limit (a memory-backed emptyDir is charged to the pod)."""
    return min(SHM_MAX_GI, max(SHM_MIN_GI, int(memory_gi * SHM_FRACTION)))


def threads_per_worker(pool: NodePool, cpu: int) -> int:
    """Intra-op threads of each worker: the pod's CPUs shared among its workers, never the host's cores."""
    return max(1, cpu // workers_per_pod(pool))


def container_resources(pool: NodePool, cpu: int, memory: str) -> dict:
    """Guaranteed QoS: requests equal limits, whole CPUs (so the static CPU manager can pin them)."""
    amounts = {"cpu": str(cpu), "memory": memory}
    if pool.is_gpu:
        amounts["nvidia.com/gpu"] = str(pool.worker_gpus)
    efa = pool_plan.efa_layout(pool, pool.instance_type) if pool.instance_type else None
    if efa:  # the node's EFA devices and the hugepages libfabric's EFA provider registers its buffers in
        amounts[EFA_RESOURCE] = str(efa.per_pod)
        amounts["hugepages-2Mi"] = f"{pool_plan.EFA_HUGEPAGES_MIB_PER_POD}Mi"
    return {"requests": dict(amounts), "limits": dict(amounts)}


def training_env(args: TrainingJobArgs, job: str, service: str) -> list[dict]:
    """The image's entrypoint contract (workloads/README.md): c10d rendezvous hosted by the first pod, an
    elastic node count, one worker per GPU (one per CPU node, which owns every core of the pod)."""
    nodes = args.node_count
    values: dict[str, pulumi.Input[str]] = {
        "SAHAB_NNODES": f"{rendezvous_min_nodes(nodes, args.min_nodes_fraction)}:{nodes}",
        "SAHAB_NPROC_PER_NODE": str(workers_per_pod(args.pool)),
        "SAHAB_RDZV_ENDPOINT": f"{job}-0.{service}:{RENDEZVOUS_PORT}",
        "SAHAB_RDZV_ID": job,
        "SAHAB_MAX_RESTARTS": "3",
        "SAHAB_CHECKPOINT_DIR": args.checkpoint_uri if args.checkpoint_uri is not None else CHECKPOINT_DIR,
    }
    if args.checkpoint_uri is not None:
        values["SAHAB_RESULT_FILE"] = f"{SCRATCH_DIR}/validation/node.json"
    if nodes > 1:  # the fabric the set's all-reduce is judged against before it trains (workloads.node_fabric)
        values["SAHAB_FABRIC"] = fabric_of(args.pool.instance_type).to_env()
    if args.pool.instance_type and pool_plan.efa_layout(args.pool, args.pool.instance_type):
        values["FI_PROVIDER"] = "efa"  # libfabric (and so NCCL's OFI plugin) over the EFA devices, never TCP
    return [{"name": k, "value": v} for k, v in values.items()]


def training_command(args: TrainingJobArgs) -> list[str]:
    """The model is the workload's preset (`auto`: the one of the node's GPU class, decided in the pod)."""
    workload = args.workload
    command = [ENTRYPOINT, "train", "--steps", str(workload.steps), "--checkpoint-every",
               str(workload.checkpoint_every), "--preset", workload.model]
    if workload.batch_size is not None:
        command += ["--batch-size", str(workload.batch_size)]
    return command


def validation_requirement(pool: NodePool) -> dict:
    """The node affinity term on the validator's verdict: passed only; on a scale-from-zero pool (whose new
    nodes the autoscaler must be able to imagine from a template with no verdict) no verdict other than passed."""
    if pool.min_size == 0:
        return {"key": VALIDATION_LABEL, "operator": "NotIn", "values": [v for v in VERDICTS if v != PASSED]}
    return {"key": VALIDATION_LABEL, "operator": "In", "values": [PASSED]}


class TrainingJob(pulumi.ComponentResource):
    """Validated distributed training on one node pool, queued in Kueue."""

    def __init__(self, name: str, args: TrainingJobArgs, opts: pulumi.ResourceOptions | None = None):
        if args.checkpoint_uri is None and args.storage_class is None:
            raise ValueError("a TrainingJob needs checkpoint_uri or storage_class for its checkpoints")
        super().__init__("sahab:kubernetes:TrainingJob", name, None, opts)
        pool, team = args.pool, args.team
        job_name = f"train-{pool.name}"[:52]
        service_name = f"{job_name}-rdzv"
        labels = {**MANAGED_BY, "app.kubernetes.io/name": "sahab-training", "sahab.io/job": job_name}

        # The rendezvous Service lives where the pods run.
        sites = [pulumi.ResourceOptions(parent=self, provider=p) for p in args.run_on] or \
            [pulumi.ResourceOptions(parent=self)]
        dependencies: list[pulumi.Resource] = []
        for i, site in enumerate(sites):
            suffix = "" if len(sites) == 1 else f"-{i}"
            # Headless: the first pod's stable DNS name is the rendezvous endpoint, ready or not.
            dependencies.append(k8s.core.v1.Service(f"{name}-rendezvous{suffix}", metadata={
                "name": service_name, "namespace": team.name, "labels": labels}, spec={
                "clusterIP": "None", "publishNotReadyAddresses": True, "selector": {"sahab.io/job": job_name},
                "ports": [{"name": "c10d", "port": RENDEZVOUS_PORT, "targetPort": RENDEZVOUS_PORT}]}, opts=site))

        self.job = k8s.batch.v1.Job(f"{name}-job", metadata={
            "name": job_name, "namespace": team.name,
            "labels": {**labels, QUEUE_LABEL: args.queue},
            # The Job runs for hours after Kueue admits it: `pulumi up` records it and moves on.
            "annotations": dict(SKIP_AWAIT)},
            spec=self._job_spec(args, job_name, service_name, labels),
            opts=pulumi.ResourceOptions(parent=self, depends_on=dependencies))
        if args.checkpoint_uri is None and args.node_count > 1:
            # Each pod's volume goes with the pod and holds only its node's shards: nothing to resume from.
            pulumi.log.warn(f"{job_name}: {args.node_count} nodes checkpoint to per-pod volumes, so a retried run "
                            "starts over; give the cluster a checkpoint store (an object store for the site, a "
                            "`checkpoints` bucket for the cloud)", resource=self)
        self.job_name = job_name
        self.register_outputs({"jobName": job_name, "namespace": team.name, "service": service_name,
                               "queue": args.queue})

    @staticmethod
    def _job_spec(args: TrainingJobArgs, job: str, service: str, labels: dict) -> dict:
        pool, team, workload = args.pool, args.team, args.workload
        nodes = args.node_count
        cpu, memory_gi = pod_size(pool, args.node_cpus, args.node_memory_gib)
        cpu, memory_gi = args.cpu or cpu, args.memory_gi or memory_gi
        resources = container_resources(pool, cpu, f"{memory_gi}Gi")
        hardened = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "runAsNonRoot": True,
                    "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}
        threads = str(threads_per_worker(pool, cpu))
        env = [
            # PyTorch's intra-op pool (OpenMP, MKL) from the pod's CPUs, not from every core of the host.
            {"name": "OMP_NUM_THREADS", "value": threads},
            {"name": "MKL_NUM_THREADS", "value": threads},
            {"name": "HOME", "value": "/tmp"},  # the root filesystem is read-only
        ]
        env += training_env(args, job, service)
        remote = args.checkpoint_uri is not None
        work_dir = SCRATCH_DIR if remote else CHECKPOINT_DIR
        mounts = [{"name": "checkpoints", "mountPath": work_dir}, {"name": "tmp", "mountPath": "/tmp"},
                  {"name": "dshm", "mountPath": "/dev/shm"}]
        init = []
        if workload.validate_nodes:
            # A gate that writes nothing: the node's verdict on the API is the system validator's alone.
            init.append({"name": VALIDATION_CONTAINER, "image": workload.image,
                         "command": [ENTRYPOINT, "validate"], "env": env, "resources": resources,
                         "securityContext": hardened, "volumeMounts": mounts})
        # Remote checkpoints are staged (written, and read back on resume) on the sized scratch volume, not /tmp.
        staging = [{"name": "TMPDIR", "value": SCRATCH_DIR}] if remote else []
        train = {"name": TRAIN_CONTAINER, "image": workload.image,
                 "command": training_command(args), "env": env + staging + list(args.checkpoint_env),
                 "resources": resources,
                 "securityContext": hardened, "volumeMounts": mounts,
                 "ports": [{"name": "c10d", "containerPort": RENDEZVOUS_PORT}]}
        on_nodes = [{"key": LABEL_POOL, "operator": "In", "values": [pool.name]}]
        if workload.validate_nodes:
            on_nodes.append(validation_requirement(pool))
        affinity = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
                "matchExpressions": on_nodes}]}},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"sahab.io/job": job}},
                "topologyKey": "kubernetes.io/hostname"}]},
        }
        if remote:
            scratch: dict = {"name": "checkpoints", "emptyDir": {"sizeLimit": f"{args.checkpoint_size_gi}Gi"}}
        else:
            scratch = {"name": "checkpoints", "ephemeral": {"volumeClaimTemplate": {
                "metadata": {"labels": labels},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": args.storage_class,
                         "resources": {"requests": {"storage": f"{args.checkpoint_size_gi}Gi"}}}}}}
        pod_spec = {
            "subdomain": service,
            "restartPolicy": "Never",
            "priorityClassName": priority_class_name(team.priority),
            "serviceAccountName": args.service_account or TRAINING_SERVICE_ACCOUNT,
            # No API token: the pods need no Kubernetes API. A cloud identity (IRSA, Azure workload identity)
            # arrives as its own audience-scoped projected token, which the cloud's webhook mounts regardless.
            "automountServiceAccountToken": False,
            "securityContext": {"runAsNonRoot": True, "runAsUser": IMAGE_UID, "runAsGroup": IMAGE_UID,
                                "fsGroup": IMAGE_UID, "seccompProfile": {"type": "RuntimeDefault"}},
            "tolerations": [toleration_for(t) for t in pool.taints],
            "affinity": affinity,
            "initContainers": init,
            "containers": [train],
            "volumes": [scratch, {"name": "tmp", "emptyDir": {}},
                        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": f"{shm_size_gi(memory_gi)}Gi"}}],
        }
        spec = {
            # Kueue admits it: it starts when the whole gang fits the team's quota on the pool.
            "suspend": True,
            "completionMode": "Indexed",
            "completions": nodes,
            "parallelism": nodes,
            "backoffLimitPerIndex": args.backoff_limit_per_index,
            # Node slots may fail for good (no healthy node left for them); the elastic group trains without them
            # (Kueue requeues the Job only after its recoveryTimeout, components/kubernetes/kueue.py).
            "maxFailedIndexes": nodes - rendezvous_min_nodes(nodes, args.min_nodes_fraction),
            "podFailurePolicy": {"rules": [
                # A node drained or preempted under the pod is not the run's fault: retry without counting.
                {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
                # A node that could not be judged at all: another node would not fare better.
                {"action": "FailIndex", "onExitCodes": {"containerName": VALIDATION_CONTAINER, "operator": "In",
                                                        "values": [CANNOT_VALIDATE]}},
                # Index 0, which hosts the rendezvous store, went: torchrun's agents on the other pods lose the
                # store and exit; their retries are index 0's loss, not theirs.
                {"action": "Ignore", "onExitCodes": {"containerName": TRAIN_CONTAINER, "operator": "In",
                                                     "values": [RENDEZVOUS_LOST]}},
            ]},
            # The rendezvous host finishes last-but-together with the group: its success is the run's.
            "successPolicy": {"rules": [{"succeededIndexes": "0"}]},
            "template": {"metadata": {"labels": {**labels, **args.pod_labels}}, "spec": pod_spec},
        }
        if args.managed_by:
            spec["managedBy"] = args.managed_by
        return spec


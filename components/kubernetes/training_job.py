"""TrainingJob: benchmark-validated distributed training on one node pool, as an Indexed Job.

One pod per node of the pool (pod anti-affinity on the hostname), running the image's entrypoint as its
contract in workloads/README.md describes. An init container validates the node (`sahab bench`): a node
below its hardware class's floors labels itself `sahab.io/validation=failed` and the pod fails; the retried
pod's node affinity keeps it off every node so labelled. The training container then runs torchrun with c10d
rendezvous hosted by the first pod (`<job>-0.<service>`), the node rank from JOB_COMPLETION_INDEX, and an
elastic node count (`MIN:N`), so training goes on over the nodes that passed. Checkpoints go to a per-pod
volume from the cluster's encrypted storage class; every node keeps its own copy (see workloads/train/trainer.py).
"""

from __future__ import annotations

import math
import shlex

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field

from components.catalog import LABEL_POOL
from components.config import NodePool, Team, Workload
from components.kubernetes.common import MANAGED_BY, Args, StrInput
from components.kubernetes.gpu_config import toleration_for
from components.kubernetes.priority_classes import priority_class_name
from components.kubernetes.team_namespace import RENDEZVOUS_PORT

VALIDATION_LABEL = "sahab.io/validation"
VALIDATOR_SERVICE_ACCOUNT = "node-validator"
CHECKPOINT_DIR = "/checkpoints"  # validation results land here too, where the training step reads its peak
ENTRYPOINT = "sahab-entrypoint"  # workloads/entrypoint.sh in the image
# UID/GID of the image's unprivileged user (workloads/Dockerfile*).
IMAGE_UID = 10001


class TrainingJobArgs(Args):
    pool: NodePool
    """The pool to train on: one pod per node, GPU requests and tolerations from the pool."""
    team: Team
    """The team whose namespace, service quota and training tier the Job uses."""
    workload: Workload
    """Image, steps, checkpoint interval and whether nodes are validated first."""
    storage_class: StrInput
    """The cluster's encrypted storage class, for checkpoint volumes."""
    checkpoint_size_gi: int = Field(default=50, ge=1)
    """Size of each pod's checkpoint volume. Default: 50 GiB."""
    min_nodes_fraction: float = Field(default=0.5, gt=0, le=1)
    """Train once at least this share of the pool's nodes passed validation and joined. Default: 0.5."""
    cpu_request: str = "4"
    """CPU request per pod (CPU pools use it for the worker threads too). Default: 4."""
    memory_request: str = "16Gi"
    """Memory request and limit per pod. Default: 16Gi."""
    backoff_limit_per_index: int = Field(default=2, ge=0)
    """Retries of one node slot (e.g. on another node after a failed validation). Default: 2."""


def rendezvous_min_nodes(nodes: int, fraction: float) -> int:
    """Nodes the elastic rendezvous waits for before training starts."""
    return max(1, math.ceil(nodes * fraction))


def training_env(args: TrainingJobArgs, job: str, service: str) -> list[dict]:
    """The image's entrypoint contract (workloads/README.md): c10d rendezvous hosted by the first pod, an
    elastic node count, one worker per GPU (one per CPU node, which owns every core)."""
    pool = args.pool
    nodes = pool.size
    values = {
        "SAHAB_NNODES": f"{rendezvous_min_nodes(nodes, args.min_nodes_fraction)}:{nodes}",
        "SAHAB_NPROC_PER_NODE": str(pool.gpus_per_node if pool.is_gpu else 1),
        "SAHAB_RDZV_ENDPOINT": f"{job}-0.{service}:{RENDEZVOUS_PORT}",
        "SAHAB_RDZV_ID": job,
        "SAHAB_MAX_RESTARTS": "3",
        "SAHAB_CHECKPOINT_DIR": CHECKPOINT_DIR,
    }
    return [{"name": k, "value": v} for k, v in values.items()]


def training_command(args: TrainingJobArgs) -> list[str]:
    workload = args.workload
    return [ENTRYPOINT, "train", "--steps", str(workload.steps), "--checkpoint-every", str(workload.checkpoint_every)]


def validation_script() -> str:
    """Measure this node (exit 1: below its floors). Only then label it, so no retried pod lands here; an
    exit 2 (could not validate, e.g. a bad baseline) fails the pod without blaming the node."""
    label = shlex.join(["python", "-m", "workloads.label_node", f"{VALIDATION_LABEL}=failed"])
    return (f"{ENTRYPOINT} validate && exit 0\nstatus=$?\n"
            f"if [ \"$status\" -eq 1 ]; then {label}; fi\nexit $status\n")


class TrainingJob(pulumi.ComponentResource):
    """Validated distributed training on one node pool."""

    def __init__(self, name: str, args: TrainingJobArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:TrainingJob", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        pool, team, workload = args.pool, args.team, args.workload
        job_name = f"train-{pool.name}"[:52]
        service_name = f"{job_name}-rdzv"
        labels = {**MANAGED_BY, "app.kubernetes.io/name": "sahab-training", "sahab.io/job": job_name}

        # Headless: the first pod's stable DNS name is the rendezvous endpoint, ready or not.
        service = k8s.core.v1.Service(f"{name}-rendezvous", metadata={
            "name": service_name, "namespace": team.name, "labels": labels}, spec={
            "clusterIP": "None", "publishNotReadyAddresses": True, "selector": {"sahab.io/job": job_name},
            "ports": [{"name": "c10d", "port": RENDEZVOUS_PORT, "targetPort": RENDEZVOUS_PORT}]}, opts=child)

        dependencies: list[pulumi.Resource] = [service]
        if workload.validate_nodes:
            dependencies += self._validator_rbac(name, team, labels, child)

        self.job = k8s.batch.v1.Job(f"{name}-job", metadata={
            "name": job_name, "namespace": team.name, "labels": labels},
            spec=self._job_spec(args, job_name, service_name, labels),
            opts=pulumi.ResourceOptions(parent=self, depends_on=dependencies))
        self.job_name = job_name
        self.register_outputs({"jobName": job_name, "namespace": team.name, "service": service_name})

    @staticmethod
    def _validator_rbac(name: str, team: Team, labels: dict, child: pulumi.ResourceOptions) -> list:
        """The one extra right validation needs: read and label nodes. Bound to its own service account."""
        account = k8s.core.v1.ServiceAccount(f"{name}-validator-sa", metadata={
            "name": VALIDATOR_SERVICE_ACCOUNT, "namespace": team.name, "labels": labels}, opts=child)
        role = k8s.rbac.v1.ClusterRole(f"{name}-validator-role", metadata={"labels": labels}, rules=[
            {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}], opts=child)
        binding = k8s.rbac.v1.ClusterRoleBinding(f"{name}-validator-binding", metadata={"labels": labels},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role.metadata.name},
            subjects=[{"kind": "ServiceAccount", "name": VALIDATOR_SERVICE_ACCOUNT, "namespace": team.name}],
            opts=child)
        return [account, binding]

    @staticmethod
    def _job_spec(args: TrainingJobArgs, job: str, service: str, labels: dict) -> dict:
        pool, team, workload = args.pool, args.team, args.workload
        nodes = pool.size
        resources = {"requests": {"cpu": args.cpu_request, "memory": args.memory_request},
                     "limits": {"memory": args.memory_request}}
        if pool.is_gpu:
            resources["limits"]["nvidia.com/gpu"] = str(pool.gpus_per_node)
            resources["requests"]["nvidia.com/gpu"] = str(pool.gpus_per_node)
        hardened = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "runAsNonRoot": True,
                    "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}
        env = [
            {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
            {"name": "OMP_NUM_THREADS", "value": args.cpu_request if not pool.is_gpu else "1"},
            {"name": "HOME", "value": "/tmp"},  # the root filesystem is read-only
        ]
        env += training_env(args, job, service)
        mounts = [{"name": "checkpoints", "mountPath": CHECKPOINT_DIR}, {"name": "tmp", "mountPath": "/tmp"}]
        init = []
        if workload.validate_nodes:
            init.append({"name": "validate", "image": workload.image, "command": ["/bin/sh", "-c", validation_script()],
                         "env": env, "resources": resources, "securityContext": hardened, "volumeMounts": mounts})
        train = {"name": "train", "image": workload.image,
                 "command": training_command(args), "env": env, "resources": resources,
                 "securityContext": hardened, "volumeMounts": mounts,
                 "ports": [{"name": "c10d", "containerPort": RENDEZVOUS_PORT}]}
        affinity = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
                "matchExpressions": [
                    {"key": LABEL_POOL, "operator": "In", "values": [pool.name]},
                    {"key": VALIDATION_LABEL, "operator": "NotIn", "values": ["failed"]}]}]}},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"sahab.io/job": job}},
                "topologyKey": "kubernetes.io/hostname"}]},
        }
        pod_spec = {
            "subdomain": service,
            "restartPolicy": "Never",
            "priorityClassName": priority_class_name(team.priority),
            "serviceAccountName": VALIDATOR_SERVICE_ACCOUNT if workload.validate_nodes else "training",
            "automountServiceAccountToken": workload.validate_nodes,
            "securityContext": {"runAsNonRoot": True, "runAsUser": IMAGE_UID, "runAsGroup": IMAGE_UID,
                                "fsGroup": IMAGE_UID, "seccompProfile": {"type": "RuntimeDefault"}},
            "tolerations": [toleration_for(t) for t in pool.taints],
            "affinity": affinity,
            "initContainers": init,
            "containers": [train],
            "volumes": [
                {"name": "checkpoints", "ephemeral": {"volumeClaimTemplate": {
                    "metadata": {"labels": labels},
                    "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": args.storage_class,
                             "resources": {"requests": {"storage": f"{args.checkpoint_size_gi}Gi"}}}}}},
                {"name": "tmp", "emptyDir": {}},
            ],
        }
        return {
            "completionMode": "Indexed",
            "completions": nodes,
            "parallelism": nodes,
            "backoffLimitPerIndex": args.backoff_limit_per_index,
            # Node slots may fail for good (no healthy node left for them); the elastic group trains without them.
            "maxFailedIndexes": nodes - rendezvous_min_nodes(nodes, args.min_nodes_fraction),
            "podFailurePolicy": {"rules": [
                {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]},
            "template": {"metadata": {"labels": labels}, "spec": pod_spec},
        }

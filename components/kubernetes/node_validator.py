"""NodeValidator: the only thing in a cluster that may write node validation results, from `sahab-system`.

Tenants never get a right on nodes. Instead, in the `sahab-system` namespace (Pod Security `restricted`):

- per training pool a DaemonSet `validate-<pool>` that runs `python -m workloads node-validate` (the image's own
  entrypoint, workloads/node_validation.py) on each of the pool's nodes that has not passed: it benchmarks the
  node with the workload's `bench` and writes the
  verdict as `sahab.io/validation*` labels and annotations on its own node. It asks for what one training pod
  of the pool asks for (the GPUs through the device plugin, nothing privileged), so it measures what training
  would get and never shares the GPUs with a training run. Once its node passes, the DaemonSet's node affinity
  no longer matches and the pod goes, freeing the GPUs;
- one DaemonSet `validation-watch` on every node that passed: a small process that never benchmarks and turns a
  pass into `expired` when the node changed (reboot, kernel, kubelet, driver, devices) or the pass is older than
  the interval, which brings the benchmarking pod back once the node's running training is done;
- the `node-validator` ServiceAccount with a ClusterRole that may get and patch nodes, and a
  ValidatingAdmissionPolicy that narrows what RBAC cannot: that account may change only `sahab.io/validation*`
  labels and annotations, nothing else of a node, and only on the node named in its token (the
  `authentication.kubernetes.io/node-name` user extra: feature ServiceAccountTokenPodNodeInfo, beta and on by
  default in 1.30 and 1.31, GA since 1.32). Where that extra is missing (the feature switched off) the policy
  refuses every change: nodes stay unvalidated and take no training, rather than trusting the token blindly.

A stack that adds pools to a cluster another stack owns (burst) creates only the pools' DaemonSets
(`shared=False`): the namespace, account, rights and policy are the owning stack's.
"""

from __future__ import annotations

import json

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field
from sahab.components.accelerators import LABEL_POOL
from sahab.components.fleet_config import NodePool
from sahab.components.kubernetes.common import MANAGED_BY, Args, system_namespace_labels
from sahab.components.kubernetes.placement import pool_agent_placement

SYSTEM_NAMESPACE = "sahab-system"
VALIDATOR_ACCOUNT = "node-validator"
VALIDATOR_USER = f"system:serviceaccount:{SYSTEM_NAMESPACE}:{VALIDATOR_ACCOUNT}"
VALIDATOR_ROLE = "sahab-node-validator"
POLICY_NAME = "sahab-node-validation"
NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name"
# The keys the validator writes (workloads/node_validation.py) all start with this; it may change no other.
VALIDATION_PREFIX = "sahab.io/validation"
VALIDATION_LABEL = VALIDATION_PREFIX
PASSED = "passed"
VERDICTS = ("passed", "failed", "inconclusive", "error", "expired")
# On a DaemonSet: the labels it gives every node it runs on once that node is healthy (the readiness model
# in sahab/readiness counts them as the pool's labels, as the scheduler will see them).
NODE_LABELS_ANNOTATION = "sahab.io/node-labels"
IMAGE_UID = 10001  # the workload image's unprivileged user (workloads/Dockerfile*)
WATCH_DAEMONSET = "validation-watch"
WORKLOAD = ["python", "-m", "workloads"]  # the image's entrypoint (workloads/__main__.py); it has no `sahab`


class NodeValidatorArgs(Args):
    image: str
    """The workload image (its `python -m workloads` serves `node-validate` and `bench`). Required."""
    pools: tuple[NodePool, ...] = ()
    """The training pools whose nodes are validated, one DaemonSet each. Default: none."""
    shared: bool = True
    """Create the namespace, service account, RBAC, admission policy and the watch DaemonSet. False for a
    stack that only adds pools to a cluster whose owning stack created them. Default: true."""
    interval: str = Field(default="24h", pattern=r"^[1-9][0-9]*[smhd]$")
    """How long a pass stands before the node is benchmarked again. Default: 24h."""
    retry_after: str = Field(default="15m", pattern=r"^[1-9][0-9]*[smhd]$")
    """How long after a failed, inconclusive or errored run the node is benchmarked again. Default: 15m."""
    time_budget: int = Field(default=60, ge=5, le=3600)
    """`sahab bench`'s hard limit per run, seconds. Default: 60."""
    cpu: str = "1"
    """CPU request of a benchmarking pod (no CPU limit: the bench measures the whole idle node). Default: 1."""
    memory: str = Field(default="2Gi", pattern=r"^[0-9]+(Mi|Gi)$")
    """Memory request of a benchmarking pod. Default: 2Gi."""
    memory_limit: str = Field(default="8Gi", pattern=r"^[0-9]+(Mi|Gi)$")
    """Memory limit of a benchmarking pod. Default: 8Gi."""


def _map_or_empty(expr: str) -> str:
    return f"has({expr}) ? {expr} : {{}}"


def _unchanged(field: str) -> str:
    """An optional field is absent in both, or present and equal in both."""
    new, old = f"object.{field}", f"oldObject.{field}"
    return f"(has({new}) == has({old}) && (!has({new}) || {new} == {old}))"


def _only_validation_keys(kind: str) -> str:
    """Every key of `kind` (labels or annotations) outside the validation prefix is unchanged."""
    old, new = f"variables.old{kind}", f"variables.new{kind}"
    keep = f"k.startsWith('{VALIDATION_PREFIX}')"
    return (f"{new}.all(k, {keep} || (k in {old} && {old}[k] == {new}[k])) && "
            f"{old}.all(k, {keep} || k in {new})")


# name -> CEL expression; evaluated by the API server with `object`, `oldObject` and `request` bound.
POLICY_VARIABLES = {
    "oldLabels": _map_or_empty("oldObject.metadata.labels"),
    "newLabels": _map_or_empty("object.metadata.labels"),
    "oldAnnotations": _map_or_empty("oldObject.metadata.annotations"),
    "newAnnotations": _map_or_empty("object.metadata.annotations"),
}
POLICY_VALIDATIONS = [
    {"expression": (f"has(request.userInfo.extra) && '{NODE_NAME_EXTRA}' in request.userInfo.extra && "
                    f"request.userInfo.extra['{NODE_NAME_EXTRA}'] == [object.metadata.name]"),
     "message": ("the node validator may change only the node its pod runs on (its service-account token "
                 f"must name that node in {NODE_NAME_EXTRA}: ServiceAccountTokenPodNodeInfo, on by default "
                 "since Kubernetes 1.30)"),
     "reason": "Forbidden"},
    {"expression": f"{_only_validation_keys('Labels')} && {_only_validation_keys('Annotations')}",
     "message": f"the node validator may change only {VALIDATION_PREFIX}* labels and annotations",
     "reason": "Forbidden"},
    # A Node always carries spec and status; lists are compared present-or-absent (no ternary of mixed types).
    {"expression": ("object.spec == oldObject.spec && object.status == oldObject.status && "
                    f"{_unchanged('metadata.finalizers')} && {_unchanged('metadata.ownerReferences')}"),
     "message": "the node validator may not change a node's spec (taints, unschedulable), status, finalizers "
                "or owners",
     "reason": "Forbidden"},
    {"expression": (f"!('{VALIDATION_LABEL}' in variables.newLabels) || "
                    f"variables.newLabels['{VALIDATION_LABEL}'] in {list(VERDICTS)}"),
     "message": f"{VALIDATION_LABEL} must be one of {', '.join(VERDICTS)}",
     "reason": "Invalid"},
]
POLICY_MATCH = f"request.userInfo.username == '{VALIDATOR_USER}'"


def policy_spec() -> dict:
    """The ValidatingAdmissionPolicy's spec: UPDATEs of nodes by the validator's account only."""
    return {
        "failurePolicy": "Fail",
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                "operations": ["UPDATE"], "resources": ["nodes"]}]},
        "matchConditions": [{"name": "node-validator-only", "expression": POLICY_MATCH}],
        "variables": [{"name": k, "expression": v} for k, v in POLICY_VARIABLES.items()],
        "validations": POLICY_VALIDATIONS,
    }


def _hardened() -> dict:
    return {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "runAsNonRoot": True,
            "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}


def shm_volume(memory_limit: str) -> dict:
    """/dev/shm for NCCL's shared-memory transport (the all-reduce probe between the node's GPUs): memory-backed,
    a quarter of the pod's memory limit, which it counts against (Docker's 64 MiB default breaks NCCL on
    multi-GPU pods: NVIDIA/nccl#525)."""
    amount, unit = int(memory_limit[:-2]), memory_limit[-2:]
    mib = amount * (1024 if unit == "Gi" else 1) // 4
    return {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": f"{max(mib, 64)}Mi"}}


def validator_pod(args: NodeValidatorArgs, command: list[str], resources: dict, placement_affinity: dict,
                  tolerations: list[dict], node_selector: dict[str, str], shm: bool = False) -> dict:
    """A restricted pod of the validator's account that knows its node's name (with a /dev/shm if `shm`)."""
    mounts = [{"name": "tmp", "mountPath": "/tmp"}]
    volumes = [{"name": "tmp", "emptyDir": {}}]
    if shm:
        mounts.append({"name": "dshm", "mountPath": "/dev/shm"})
        volumes.append(shm_volume(resources["limits"]["memory"]))
    return {
        "serviceAccountName": VALIDATOR_ACCOUNT,
        "automountServiceAccountToken": True,  # it talks to the API server: that is its job
        "securityContext": {"runAsNonRoot": True, "runAsUser": IMAGE_UID, "runAsGroup": IMAGE_UID,
                            "seccompProfile": {"type": "RuntimeDefault"}},
        "nodeSelector": node_selector,
        "affinity": placement_affinity,
        "tolerations": tolerations,
        "terminationGracePeriodSeconds": 10,
        "containers": [{
            "name": "validator", "image": args.image, "command": command, "resources": resources,
            "securityContext": _hardened(),
            "env": [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
                    {"name": "HOME", "value": "/tmp"}],  # the root filesystem is read-only
            "volumeMounts": mounts,
        }],
        "volumes": volumes,
    }


def _verdict_affinity(operator: str) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
        "matchExpressions": [{"key": VALIDATION_LABEL, "operator": operator, "values": [PASSED]}]}]}}}


def benchmark_command(args: NodeValidatorArgs) -> list[str]:
    return [*WORKLOAD, "node-validate", "--interval", args.interval, "--retry-after",
            args.retry_after, "--time-budget", str(args.time_budget)]


def benchmark_resources(pool: NodePool, args: NodeValidatorArgs) -> dict:
    """What one training pod of the pool gets (its GPUs), so the verdict is about what training will use."""
    requests = {"cpu": args.cpu, "memory": args.memory}
    limits = {"memory": args.memory_limit}
    if pool.is_gpu:
        requests["nvidia.com/gpu"] = limits["nvidia.com/gpu"] = str(pool.worker_gpus)
    return {"requests": requests, "limits": limits}


def daemonset_name(pool: NodePool) -> str:
    return f"validate-{pool.name}"[:63]


class NodeValidator(pulumi.ComponentResource):
    """Node validation by a system DaemonSet that alone may label nodes, and only its own."""

    def __init__(self, name: str, args: NodeValidatorArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:NodeValidator", name, None, opts)
        labels = {**MANAGED_BY, "app.kubernetes.io/name": "sahab-node-validator"}
        child = pulumi.ResourceOptions(parent=self)
        after: list[pulumi.Resource] = []
        if args.shared:
            after = self._shared(name, args, labels, child)
        in_ns = pulumi.ResourceOptions(parent=self, depends_on=after)

        def meta(object_name: str, **extra: object) -> dict:
            return {"name": object_name, "namespace": SYSTEM_NAMESPACE, "labels": labels, **extra}

        self.daemonsets = {}
        for pool in args.pools:
            placement = pool_agent_placement(pool)
            selector = {"app.kubernetes.io/name": "sahab-node-validator", LABEL_POOL: pool.name}
            pod = validator_pod(args, benchmark_command(args), benchmark_resources(pool, args),
                                _verdict_affinity("NotIn"), list(placement.tolerations),
                                dict(placement.node_selector), shm=pool.is_gpu)
            self.daemonsets[pool.name] = k8s.apps.v1.DaemonSet(
                f"{name}-{pool.name}", metadata=meta(daemonset_name(pool), annotations={
                    NODE_LABELS_ANNOTATION: json.dumps({VALIDATION_LABEL: PASSED})}),
                spec={"selector": {"matchLabels": selector},
                      # A tenth of the nodes at a time: each pod only ever judges its own node, and a pool's
                      # verdicts are not all re-measured at once.
                      "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "10%"}},
                      "template": {"metadata": {"labels": {**labels, **selector}}, "spec": pod}},
                opts=in_ns)
        self.namespace = SYSTEM_NAMESPACE
        self.register_outputs({"namespace": SYSTEM_NAMESPACE, "serviceAccount": VALIDATOR_ACCOUNT,
                               "daemonSets": {p.name: daemonset_name(p) for p in args.pools}})

    def _shared(self, name: str, args: NodeValidatorArgs, labels: dict,
                child: pulumi.ResourceOptions) -> list[pulumi.Resource]:
        ns = k8s.core.v1.Namespace(f"{name}-namespace", metadata={
            "name": SYSTEM_NAMESPACE, "labels": {**labels, **system_namespace_labels(SYSTEM_NAMESPACE, "restricted")}},
            opts=child)
        in_ns = pulumi.ResourceOptions(parent=self, depends_on=[ns])
        account = k8s.core.v1.ServiceAccount(f"{name}-sa", metadata={
            "name": VALIDATOR_ACCOUNT, "namespace": SYSTEM_NAMESPACE, "labels": labels},
            automount_service_account_token=False, opts=in_ns)  # only the validator's own pods mount it
        role = k8s.rbac.v1.ClusterRole(f"{name}-role", metadata={"name": VALIDATOR_ROLE, "labels": labels}, rules=[
            # RBAC cannot name "the node I run on": the admission policy below narrows patch to that.
            {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}], opts=child)
        policy = k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
            f"{name}-policy", metadata={"name": POLICY_NAME, "labels": labels}, spec=policy_spec(), opts=child)
        # The policy is bound before the rights are (depends_on), so there is no moment of unchecked patch.
        policy_binding = k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
            f"{name}-policy-binding", metadata={"name": POLICY_NAME, "labels": labels},
            spec={"policyName": POLICY_NAME, "validationActions": ["Deny"]},
            opts=pulumi.ResourceOptions(parent=self, depends_on=[policy]))
        binding_opts = pulumi.ResourceOptions(parent=self, depends_on=[account, role, policy_binding])
        binding = k8s.rbac.v1.ClusterRoleBinding(f"{name}-binding", metadata={"name": VALIDATOR_ROLE,
                                                                               "labels": labels},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": VALIDATOR_ROLE},
            subjects=[{"kind": "ServiceAccount", "name": VALIDATOR_ACCOUNT, "namespace": SYSTEM_NAMESPACE}],
            opts=binding_opts)
        watch = validator_pod(
            args, [*WORKLOAD, "node-validate", "--watch", "--interval", args.interval],
            {"requests": {"cpu": "10m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}},
            _verdict_affinity("In"),
            # Wherever a node passed, whatever its taints: it is a tiny agent that only reads its node.
            [{"operator": "Exists"}], {})
        selector = {"app.kubernetes.io/name": "sahab-validation-watch"}
        k8s.apps.v1.DaemonSet(f"{name}-watch", metadata={
            "name": WATCH_DAEMONSET, "namespace": SYSTEM_NAMESPACE, "labels": labels},
            spec={"selector": {"matchLabels": selector},
                  "template": {"metadata": {"labels": {**labels, **selector}}, "spec": watch}},
            opts=pulumi.ResourceOptions(parent=self, depends_on=[binding]))
        return [ns, account, binding]

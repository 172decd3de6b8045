"""Burst: Kueue MultiKueue with an on-prem cluster as manager and UAE cloud clusters as workers.

A team submits training to its `<team>-burst` LocalQueue on the manager. That queue's ClusterQueue holds the
team's quota over the burst pools and carries one admission check, MultiKueue: once the manager reserves
quota, Kueue copies the Job to every worker and keeps the copy of the first worker that admits it; the others
are withdrawn. On each worker the same-named LocalQueue leads to a ClusterQueue over this stack's pools of
that worker, with one ResourceFlavor per pool (its node labels and the tolerations of its taints): the admitted
pods are aimed at the pool, which scales from zero for them (cluster-autoscaler on EKS, AKS's own).

Kueue forbids scoping a MultiKueue check to some flavors of a queue, so on-prem and burst capacity cannot
share one ClusterQueue: the on-prem queue is the team's own (`<team>`), the burst one is separate.

The manager reaches each worker with a kubeconfig held in a Secret in its Kueue namespace: a token of a
`multikueue` service account on the worker, never the operator's credentials. That account changes Jobs and
Workloads only in the team namespaces (a Role in each); across the cluster it may only read them, because Kueue
v0.19.2 watches a worker's Workloads and Jobs in every namespace (kubernetes-sigs/kueue v0.19.2,
pkg/controller/admissionchecks/multikueue/multikueuecluster.go, establishWatch lists with no namespace). Its token
is short-lived: a CronJob on the manager (components/kubernetes/multikueue_rotation.py) mints a new one every hour
through the TokenRequest API and revokes the bootstrap token Pulumi created. The kubeconfig is a Pulumi secret
end to end.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml
from pydantic import Field
from sahab.components.fleet_config import NodePool, Team
from sahab.components.kubernetes.common import MANAGED_BY, Args
from sahab.components.kubernetes.kueue import (
    API_VERSION,
    NAMESPACE,
    RESOURCES,
    flavor_name,
    flavor_spec,
    kueue_object,
    pool_gpus,
)

CONTROLLER = "kueue.x-k8s.io/multikueue"
MULTIKUEUE_JOBS = CONTROLLER  # a Job's `spec.managedBy` when the manager hands it to a worker
CHECK_NAME = "sahab-burst"
WORKER_ACCOUNT = "multikueue"
QUEUE_SUFFIX = "-burst"
LABEL_REGION = "sahab.io/region"
LABEL_WORKER_KIND = "sahab.io/cluster-kind"

# What MultiKueue does on a worker (Kueue's MultiKueue setup): create and follow Jobs and their Workloads, in the
# team namespaces only.
WORKER_RULES = [
    {"apiGroups": ["batch"], "resources": ["jobs"],
     "verbs": ["create", "delete", "get", "list", "watch", "update", "patch"]},
    {"apiGroups": ["batch"], "resources": ["jobs/status"], "verbs": ["get"]},
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads"],
     "verbs": ["create", "delete", "get", "list", "watch", "update", "patch"]},
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads/status"], "verbs": ["get", "patch", "update"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
]
# Across the cluster, read only: the watches Kueue opens on a worker have no namespace.
WATCH_RULES = [{"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "watch"]},
               {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads"], "verbs": ["get", "list", "watch"]}]
# The rotation: a new token for itself, and the end of its bootstrap token.
TOKEN_RULES = [{"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"],
                "resourceNames": [WORKER_ACCOUNT]},
               {"apiGroups": [""], "resources": ["secrets"], "verbs": ["delete"],
                "resourceNames": ["multikueue-bootstrap-token"]}]
ROTATOR = "multikueue-token-rotation"
ROTATION_SCRIPT = Path(__file__).with_name("multikueue_rotation.py")
TOKEN_SECONDS = 6 * 3600  # each token's life; the CronJob replaces it every hour
ROTATION_SCHEDULE = "17 * * * *"


class BurstWorker(Args):
    name: str
    """The worker cluster's name in the fleet (also its MultiKueueCluster's name)."""
    kind: str
    """eks or aks."""
    region: str
    """Its region; only the residency regions may ever be workers (the policy pack checks the label)."""
    provider: pulumi.ProviderResource
    """Its Kubernetes provider."""
    kubeconfig: Any
    """Its kubeconfig (secret Input[str]): the API server address and CA the manager's kubeconfig uses."""
    pools: tuple[NodePool, ...]
    """This stack's pools on it."""


class BurstArgs(Args):
    manager: pulumi.ProviderResource
    """The manager cluster's Kubernetes provider (the on-prem cluster where teams queue)."""
    workers: tuple[BurstWorker, ...] = Field(min_length=1)
    """Cloud clusters that run dispatched Jobs."""
    teams: tuple[Team, ...]
    """Tenants: a burst queue each, on the manager and on every worker."""
    rotation_image: str
    """Image with Python 3 that runs the token rotation on the manager (the training image, in the manager's
    registry)."""


def queue_name(team: Team) -> str:
    return f"{team.name}{QUEUE_SUFFIX}"


def team_quotas(team: Team, pools: tuple[NodePool, ...]) -> list[dict]:
    """The team's quotas on each burst pool: CPU and memory quota, GPUs capped at what the pool can hold."""
    return [{"name": flavor_name(pool), "resources": [
        {"name": "cpu", "nominalQuota": str(team.cpu_quota)},
        {"name": "memory", "nominalQuota": f"{team.memory_quota_gi}Gi"},
        {"name": "nvidia.com/gpu", "nominalQuota": str(min(team.gpu_quota, pool_gpus(pool)))},
    ]} for pool in pools]


def burst_queue_spec(team: Team, pools: tuple[NodePool, ...], dispatch: bool) -> dict:
    """A team's burst ClusterQueue; on the manager (`dispatch`) it hands admitted Jobs to MultiKueue."""
    spec: dict = {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": team.name}},
        "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": list(RESOURCES), "flavors": team_quotas(team, pools)}],
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Never"},
        "stopPolicy": "None",
    }
    if dispatch:
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": CHECK_NAME}]}
    return spec


def worker_kubeconfig(name: str, cluster_kubeconfig: str | None, token: str) -> str:
    """A kubeconfig for the manager: the worker's API server and CA from its own kubeconfig, authenticated
    with the worker's `multikueue` service account token. JSON (which is YAML), so the rotation reads it with the
    standard library."""
    doc = yaml.safe_load(cluster_kubeconfig or "") or {}
    cluster = ((doc.get("clusters") or [{}])[0] or {}).get("cluster") or {}
    entry = {"server": cluster.get("server", "")}
    if cluster.get("certificate-authority-data"):
        entry["certificate-authority-data"] = cluster["certificate-authority-data"]
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": name,
        "clusters": [{"name": name, "cluster": entry}],
        "users": [{"name": WORKER_ACCOUNT, "user": {"token": token}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": WORKER_ACCOUNT}}],
    }, indent=1)


def rotation_job_spec(image: str, workers: list[str]) -> dict:
    """The CronJob that keeps every worker's token short-lived (multikueue_rotation.py, from its ConfigMap)."""
    hardened = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "runAsNonRoot": True,
                "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}
    pod = {"serviceAccountName": ROTATOR, "restartPolicy": "OnFailure",
           "securityContext": {"runAsNonRoot": True, "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}},
           "containers": [{
               "name": "rotate", "image": image, "command": ["python", "/rotation/multikueue_rotation.py"],
               "env": [{"name": "ROTATION_WORKERS", "value": ",".join(workers)},
                       {"name": "ROTATION_NAMESPACE", "value": NAMESPACE},
                       {"name": "ROTATION_TOKEN_SECONDS", "value": str(TOKEN_SECONDS)}],
               "resources": {"requests": {"cpu": "50m", "memory": "64Mi"},
                             "limits": {"cpu": "200m", "memory": "128Mi"}},
               "securityContext": hardened,
               "volumeMounts": [{"name": "script", "mountPath": "/rotation", "readOnly": True}]}],
           "volumes": [{"name": "script", "configMap": {"name": ROTATOR}}]}
    return {"schedule": ROTATION_SCHEDULE, "concurrencyPolicy": "Forbid", "startingDeadlineSeconds": 600,
            "successfulJobsHistoryLimit": 1, "failedJobsHistoryLimit": 3,
            "jobTemplate": {"spec": {"backoffLimit": 2, "activeDeadlineSeconds": 600, "template": {"spec": pod}}}}


def _token(data: Any) -> str:
    encoded = (data or {}).get("token") if isinstance(data, dict) else None
    return base64.b64decode(encoded).decode() if encoded else ""


class Burst(pulumi.ComponentResource):
    """MultiKueue between an on-prem manager and cloud workers, with a burst queue per team."""

    def __init__(self, name: str, args: BurstArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:Burst", name, None, opts)
        on_manager = pulumi.ResourceOptions(parent=self, provider=args.manager)
        clusters = []
        worker_queues: list[pulumi.Resource] = []
        kubeconfig_secrets: list[str] = []
        for worker in args.workers:
            on_worker = pulumi.ResourceOptions(parent=self, provider=worker.provider)
            token = self._worker_access(f"{name}-{worker.name}", args.teams, on_worker)
            worker_queues += self._queues(f"{name}-{worker.name}", worker.pools, args.teams, on_worker,
                                          dispatch=False)
            secret_name = f"multikueue-{worker.name}"
            kubeconfig = pulumi.Output.secret(pulumi.Output.all(worker.kubeconfig, token).apply(
                lambda values, cluster=worker.name: worker_kubeconfig(cluster, values[0], values[1])))
            # The bootstrap (server, CA, first token) Pulumi keeps current; the Secret Kueue reads starts as its copy
            # and then holds the rotation's short-lived tokens, which Pulumi never writes over.
            k8s.core.v1.Secret(f"{name}-{worker.name}-bootstrap", metadata={
                "name": f"{secret_name}-bootstrap", "namespace": NAMESPACE, "labels": MANAGED_BY},
                type="Opaque", string_data={"kubeconfig": kubeconfig}, opts=on_manager)
            secret = k8s.core.v1.Secret(f"{name}-{worker.name}-kubeconfig", metadata={
                "name": secret_name, "namespace": NAMESPACE, "labels": MANAGED_BY},
                type="Opaque", string_data={"kubeconfig": kubeconfig}, opts=pulumi.ResourceOptions.merge(
                    on_manager, pulumi.ResourceOptions(ignore_changes=["stringData", "data"])))
            kubeconfig_secrets += [secret_name, f"{secret_name}-bootstrap"]
            clusters.append(k8s.apiextensions.CustomResource(
                f"{name}-{worker.name}-cluster", api_version=API_VERSION, kind="MultiKueueCluster",
                metadata={"name": worker.name, "labels": {**MANAGED_BY, LABEL_REGION: worker.region,
                                                          LABEL_WORKER_KIND: worker.kind}},
                spec={"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": secret_name}}},
                opts=pulumi.ResourceOptions(parent=self, provider=args.manager, depends_on=[secret])))

        self._rotation(name, args, kubeconfig_secrets, on_manager)
        config = k8s.apiextensions.CustomResource(
            f"{name}-config", **kueue_object("MultiKueueConfig", CHECK_NAME,
                                             {"clusters": [w.name for w in args.workers]}),
            opts=pulumi.ResourceOptions(parent=self, provider=args.manager, depends_on=clusters))
        check = k8s.apiextensions.CustomResource(
            f"{name}-check", **kueue_object("AdmissionCheck", CHECK_NAME, {
                "controllerName": CONTROLLER,
                "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": CHECK_NAME}}),
            opts=pulumi.ResourceOptions(parent=self, provider=args.manager, depends_on=[config]))
        pools = tuple(p for w in args.workers for p in w.pools)
        self.manager_queues = self._queues(
            f"{name}-manager", pools, args.teams,
            pulumi.ResourceOptions(parent=self, provider=args.manager, depends_on=[check, *worker_queues]),
            dispatch=True)
        self.queues = {team.name: queue_name(team) for team in args.teams}
        self.register_outputs({"admissionCheck": CHECK_NAME, "workers": [w.name for w in args.workers],
                               "queues": self.queues})

    @staticmethod
    def _worker_access(name: str, teams: tuple[Team, ...], on_worker: pulumi.ResourceOptions) -> pulumi.Output[str]:
        """The worker-side identity MultiKueue uses, its rights, and its bootstrap token (a secret Output), which
        the rotation revokes once it has minted a short-lived one."""
        labels = {**MANAGED_BY, "app.kubernetes.io/name": "multikueue"}
        subject = [{"kind": "ServiceAccount", "name": WORKER_ACCOUNT, "namespace": NAMESPACE}]
        account = k8s.core.v1.ServiceAccount(f"{name}-mk-sa", metadata={
            "name": WORKER_ACCOUNT, "namespace": NAMESPACE, "labels": labels},
            automount_service_account_token=False, opts=on_worker)
        watch = k8s.rbac.v1.ClusterRole(f"{name}-mk-watch", metadata={"labels": labels}, rules=WATCH_RULES,
                                        opts=on_worker)
        k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-mk-watch-binding", metadata={"labels": labels},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": watch.metadata.name},
            subjects=subject, opts=on_worker)
        for team in teams:
            role = k8s.rbac.v1.Role(f"{name}-mk-role-{team.name}", metadata={
                "name": WORKER_ACCOUNT, "namespace": team.name, "labels": labels}, rules=WORKER_RULES, opts=on_worker)
            k8s.rbac.v1.RoleBinding(
                f"{name}-mk-binding-{team.name}", metadata={"name": WORKER_ACCOUNT, "namespace": team.name,
                                                            "labels": labels},
                role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role.metadata.name},
                subjects=subject, opts=on_worker)
        tokens = k8s.rbac.v1.Role(f"{name}-mk-token-role", metadata={
            "name": f"{WORKER_ACCOUNT}-token", "namespace": NAMESPACE, "labels": labels}, rules=TOKEN_RULES,
            opts=on_worker)
        k8s.rbac.v1.RoleBinding(
            f"{name}-mk-token-binding", metadata={"name": f"{WORKER_ACCOUNT}-token", "namespace": NAMESPACE,
                                                  "labels": labels},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": tokens.metadata.name},
            subjects=subject, opts=on_worker)
        token = k8s.core.v1.Secret(f"{name}-mk-token", metadata={
            "name": "multikueue-bootstrap-token", "namespace": NAMESPACE, "labels": labels,
            "annotations": {"kubernetes.io/service-account.name": WORKER_ACCOUNT}},
            type="kubernetes.io/service-account-token",
            opts=pulumi.ResourceOptions.merge(on_worker, pulumi.ResourceOptions(
                depends_on=[account], additional_secret_outputs=["data"])))
        return pulumi.Output.secret(token.data.apply(_token))

    @staticmethod
    def _rotation(name: str, args: BurstArgs, secrets: list[str], on_manager: pulumi.ResourceOptions) -> None:
        """On the manager: the account that may read and replace the workers' kubeconfig Secrets and nothing else,
        the script, and the hourly CronJob that runs it."""
        labels = {**MANAGED_BY, "app.kubernetes.io/name": ROTATOR}
        meta = {"name": ROTATOR, "namespace": NAMESPACE, "labels": labels}
        live = [s for s in secrets if not s.endswith("-bootstrap")]
        k8s.core.v1.ServiceAccount(f"{name}-rotation-sa", metadata=meta, opts=on_manager)
        role = k8s.rbac.v1.Role(f"{name}-rotation-role", metadata=meta, rules=[
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"], "resourceNames": secrets},
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["update"], "resourceNames": live}],
            opts=on_manager)
        k8s.rbac.v1.RoleBinding(
            f"{name}-rotation-binding", metadata=meta,
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role.metadata.name},
            subjects=[{"kind": "ServiceAccount", "name": ROTATOR, "namespace": NAMESPACE}], opts=on_manager)
        script = k8s.core.v1.ConfigMap(f"{name}-rotation-script", metadata=meta,
                                       data={ROTATION_SCRIPT.name: ROTATION_SCRIPT.read_text()}, opts=on_manager)
        k8s.batch.v1.CronJob(f"{name}-rotation", metadata=meta,
                             spec=rotation_job_spec(args.rotation_image, [w.name for w in args.workers]),
                             opts=pulumi.ResourceOptions.merge(on_manager, pulumi.ResourceOptions(
                                 depends_on=[script, role])))

    @staticmethod
    def _queues(name: str, pools: tuple[NodePool, ...], teams: tuple[Team, ...], opts: pulumi.ResourceOptions,
                dispatch: bool) -> list[pulumi.Resource]:
        """One flavor per pool and, per team, a burst ClusterQueue and its LocalQueue in the team namespace."""
        flavors = [k8s.apiextensions.CustomResource(
            f"{name}-flavor-{pool.name}", **kueue_object("ResourceFlavor", flavor_name(pool), flavor_spec(pool)),
            opts=opts) for pool in pools]
        created: list[pulumi.Resource] = list(flavors)
        after_flavors = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=flavors))
        for team in teams:
            labels = {"sahab.io/team": team.name}
            cq = k8s.apiextensions.CustomResource(
                f"{name}-cq-{team.name}", **kueue_object("ClusterQueue", queue_name(team),
                                                         burst_queue_spec(team, pools, dispatch), labels=labels),
                opts=after_flavors)
            lq = k8s.apiextensions.CustomResource(
                f"{name}-lq-{team.name}", **kueue_object("LocalQueue", queue_name(team),
                                                         {"clusterQueue": queue_name(team)}, namespace=team.name,
                                                         labels=labels),
                opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[cq])))
            created += [cq, lq]
        return created

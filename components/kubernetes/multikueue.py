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
`multikueue` service account on the worker, allowed only what MultiKueue does there (Jobs and Kueue
Workloads), never the operator's credentials. The kubeconfig is a Pulumi secret end to end.
"""

from __future__ import annotations

import base64
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml
from pydantic import Field

from components.config import NodePool, Team
from components.kubernetes.common import MANAGED_BY, Args
from components.kubernetes.kueue import (
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

# What MultiKueue does on a worker (Kueue's MultiKueue setup): create and follow Jobs and their Workloads.
WORKER_RULES = [
    {"apiGroups": ["batch"], "resources": ["jobs"],
     "verbs": ["create", "delete", "get", "list", "watch", "update", "patch"]},
    {"apiGroups": ["batch"], "resources": ["jobs/status"], "verbs": ["get"]},
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads"],
     "verbs": ["create", "delete", "get", "list", "watch", "update", "patch"]},
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads/status"], "verbs": ["get", "patch", "update"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
]


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
    with the worker's `multikueue` service account token."""
    doc = yaml.safe_load(cluster_kubeconfig or "") or {}
    cluster = ((doc.get("clusters") or [{}])[0] or {}).get("cluster") or {}
    entry = {"server": cluster.get("server", "")}
    if cluster.get("certificate-authority-data"):
        entry["certificate-authority-data"] = cluster["certificate-authority-data"]
    return yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": name,
        "clusters": [{"name": name, "cluster": entry}],
        "users": [{"name": WORKER_ACCOUNT, "user": {"token": token}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": WORKER_ACCOUNT}}],
    }, sort_keys=False)


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
        for worker in args.workers:
            on_worker = pulumi.ResourceOptions(parent=self, provider=worker.provider)
            token = self._worker_access(f"{name}-{worker.name}", on_worker)
            worker_queues += self._queues(f"{name}-{worker.name}", worker.pools, args.teams, on_worker,
                                          dispatch=False)
            secret_name = f"multikueue-{worker.name}"
            kubeconfig = pulumi.Output.secret(pulumi.Output.all(worker.kubeconfig, token).apply(
                lambda values, cluster=worker.name: worker_kubeconfig(cluster, values[0], values[1])))
            secret = k8s.core.v1.Secret(f"{name}-{worker.name}-kubeconfig", metadata={
                "name": secret_name, "namespace": NAMESPACE, "labels": MANAGED_BY},
                type="Opaque", string_data={"kubeconfig": kubeconfig}, opts=on_manager)
            clusters.append(k8s.apiextensions.CustomResource(
                f"{name}-{worker.name}-cluster", api_version=API_VERSION, kind="MultiKueueCluster",
                metadata={"name": worker.name, "labels": {**MANAGED_BY, LABEL_REGION: worker.region,
                                                          LABEL_WORKER_KIND: worker.kind}},
                spec={"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": secret_name}}},
                opts=pulumi.ResourceOptions(parent=self, provider=args.manager, depends_on=[secret])))

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
    def _worker_access(name: str, on_worker: pulumi.ResourceOptions) -> pulumi.Output[str]:
        """The worker-side identity MultiKueue uses, and its long-lived token (a secret Output)."""
        labels = {**MANAGED_BY, "app.kubernetes.io/name": "multikueue"}
        account = k8s.core.v1.ServiceAccount(f"{name}-mk-sa", metadata={
            "name": WORKER_ACCOUNT, "namespace": NAMESPACE, "labels": labels},
            automount_service_account_token=False, opts=on_worker)
        role = k8s.rbac.v1.ClusterRole(f"{name}-mk-role", metadata={"labels": labels}, rules=WORKER_RULES,
                                       opts=on_worker)
        k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-mk-binding", metadata={"labels": labels},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role.metadata.name},
            subjects=[{"kind": "ServiceAccount", "name": WORKER_ACCOUNT, "namespace": NAMESPACE}],
            opts=on_worker)
        token = k8s.core.v1.Secret(f"{name}-mk-token", metadata={
            "name": f"{WORKER_ACCOUNT}-token", "namespace": NAMESPACE, "labels": labels,
            "annotations": {"kubernetes.io/service-account.name": WORKER_ACCOUNT}},
            type="kubernetes.io/service-account-token",
            opts=pulumi.ResourceOptions.merge(on_worker, pulumi.ResourceOptions(
                depends_on=[account], additional_secret_outputs=["data"])))
        return pulumi.Output.secret(token.data.apply(_token))

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

"""Kueue: job queueing with gang admission on one cluster, and the team queues training Jobs go through.

- The `kueue` Helm chart, pinned, with `waitForPodsReady`: an admitted Job must have every pod running within
  the timeout or it is evicted, its quota released and requeued with backoff. A multi-node run holds its nodes
  all together or not at all, so two half-admitted runs never deadlock each other.
- One ResourceFlavor per node pool: its node labels (`sahab.io/pool`) and the tolerations of its taints,
  which Kueue adds to the pods of a Job it admits on that flavor. That is what aims a queued Job at a pool.
- Per team: a ClusterQueue with the team's quotas (GPU, CPU, memory) on each flavor, ordered by the pods'
  PriorityClass (the team's training tier), preempting only lower tiers; a LocalQueue of the team's name in
  its namespace. Jobs name it with the label `kueue.x-k8s.io/queue-name`.

The pure functions below build the object specs; the component only registers them.
"""

from __future__ import annotations

from collections.abc import Iterable

import pulumi
import pulumi_kubernetes as k8s
import yaml
from pydantic import Field
from sahab.components.accelerators import LABEL_POOL
from sahab.components.artifacts import CATALOG, Images
from sahab.components.fleet_config import NodePool, Team
from sahab.components.kubernetes.common import MANAGED_BY, Args, system_namespace_labels
from sahab.components.kubernetes.gpu_config import toleration_for
from sahab.components.kubernetes.placement import Placement

CHART = CATALOG["kueue-chart"].upstream
"""Kueue's own chart registry; the release's chart is `kueue`."""
CHART_VERSION = CATALOG["kueue-chart"].version
API_VERSION = "kueue.x-k8s.io/v1beta2"
NAMESPACE = "kueue-system"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
GPU_RESOURCE = "nvidia.com/gpu"
RESOURCES = ("cpu", "memory", GPU_RESOURCE)
# How long a running Job may run short of ready pods before Kueue requeues it (it then resumes from its newest
# checkpoint on fresh nodes): long, as an elastic run that lost a node keeps training meanwhile.
RECOVERY_TIMEOUT = "24h"
# A cloud GPU pool scales from zero: the instance launches and boots, joins, the GPU stack and the EFA plugin
# start, the node validator pulls the multi-GB training image and benchmarks the node, and only then do the
# Job's pods start. Ten minutes evicts such a Job before its first node is ready; half an hour does not.
CLOUD_PODS_READY_TIMEOUT = "30m"
# Per-node devices, not a team's share: Kueue does not hold them against quota (its ClusterQueues cover CPU,
# memory and GPUs). Kueue Configuration `resources.excludeResourcePrefixes` (config.kueue.x-k8s.io/v1beta2).
UNQUOTED_RESOURCE_PREFIXES = ("vpc.amazonaws.com/efa", "hugepages-")


class KueueArgs(Args):
    pools: tuple[NodePool, ...] = ()
    """The cluster's node pools: one ResourceFlavor each. Default: none."""
    teams: tuple[Team, ...] = ()
    """Tenants: one ClusterQueue and one LocalQueue each. Default: none."""
    placement: Placement = Placement()
    """Where the controller runs (system nodes). Default: anywhere untainted."""
    images: Images = Images()
    """Where the chart (pinned, 0.19.2) and the controller image come from (components.artifacts).
    Default: registry.k8s.io."""
    pods_ready_timeout: str = Field(default="10m", pattern=r"^[0-9]+[smh]$")
    """How long an admitted Job may take to have all pods running before it is evicted and requeued.
    Default: 10m (nodes that exist); the platform gives cloud clusters CLOUD_PODS_READY_TIMEOUT."""
    requeue_limit: int = Field(default=6, ge=1)
    """Evictions for not becoming ready before a Job is deactivated. Default: 6."""


def controller_config(args: KueueArgs) -> dict:
    """Kueue's Configuration (config.kueue.x-k8s.io/v1beta2): gang admission and the Job integration."""
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": ":8081"},
        "metrics": {"bindAddress": ":8443", "enableClusterQueueResources": True},
        "webhook": {"port": 9443},
        # Two replicas for availability; one leads.
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        "manageJobsWithoutQueueName": False,
        "waitForPodsReady": {
            "timeout": args.pods_ready_timeout,
            # Not cluster-wide: a burst gang waiting for scale-from-zero nodes must not hold every other queue.
            # The timeout and requeue still break gang deadlocks.
            "blockAdmission": False,
            # Once running, an elastic run may lose a node (maxFailedIndexes) and train on: Kueue would otherwise
            # evict the whole Job `timeout` after one pod stops being ready (recoveryTimeout defaults to it).
            "recoveryTimeout": RECOVERY_TIMEOUT,
            "requeuingStrategy": {"timestamp": "Eviction", "backoffLimitCount": args.requeue_limit,
                                  "backoffBaseSeconds": 60},
        },
        "integrations": {"frameworks": ["batch/job"]},
        "resources": {"excludeResourcePrefixes": list(UNQUOTED_RESOURCE_PREFIXES)},
    }


def chart_values(args: KueueArgs) -> dict:
    placement = args.placement
    return {
        "managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(controller_config(args), sort_keys=False)},
        "controllerManager": {
            "replicas": 2,
            "manager": {"image": args.images.values("kueue")},
            "nodeSelector": dict(placement.node_selector),
            "tolerations": list(placement.tolerations),
        },
    }


def flavor_name(pool: NodePool) -> str:
    return pool.name


def flavor_spec(pool: NodePool) -> dict:
    """The pool's nodes (by their pool label) and the tolerations Kueue adds to pods it admits there."""
    spec: dict = {"nodeLabels": {LABEL_POOL: pool.name}}
    if pool.taints:
        spec["tolerations"] = [toleration_for(t) for t in pool.taints]
    return spec


def pool_gpus(pool: NodePool) -> int:
    """GPU requests the whole pool can satisfy at its largest: every node, every GPU (or slice)."""
    if not pool.is_gpu:
        return 0
    per_node = (pool.gpus_per_node or 1) * (pool.time_slicing_replicas or 1)
    return per_node * pool.max_size


def flavor_quotas(team: Team, pool: NodePool) -> dict:
    """The team's quotas on one pool: its CPU and memory quota, and its GPU quota capped at what the pool
    can ever hold (0 on CPU pools). The namespace's ResourceQuota still caps the team's total."""
    return {"name": flavor_name(pool), "resources": [
        {"name": "cpu", "nominalQuota": str(team.cpu_quota)},
        {"name": "memory", "nominalQuota": f"{team.memory_quota_gi}Gi"},
        {"name": GPU_RESOURCE, "nominalQuota": str(min(team.gpu_quota, pool_gpus(pool)))},
    ]}


def cluster_queue_spec(team: Team, pools: Iterable[NodePool], cohort: str | None = None) -> dict:
    """One ClusterQueue for the team over the given pools, for its namespace only."""
    spec: dict = {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": team.name}},
        "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": list(RESOURCES),
                            "flavors": [flavor_quotas(team, pool) for pool in pools]}],
        # Priority is the pods' PriorityClass (the team's tier): a higher tier may preempt a lower one.
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Never"},
        "stopPolicy": "None",
    }
    if cohort:
        spec["cohortName"] = cohort
    return spec


def kueue_object(kind: str, name: str, spec: dict, namespace: str | None = None,
                 labels: dict[str, str] | None = None) -> dict:
    """CustomResource arguments for one Kueue object."""
    metadata: dict = {"name": name, "labels": {**MANAGED_BY, **(labels or {})}}
    if namespace:
        metadata["namespace"] = namespace
    return {"api_version": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


class Kueue(pulumi.ComponentResource):
    """Kueue on one cluster with a queue per team over the cluster's pools."""

    namespace: pulumi.Output[str]

    def __init__(self, name: str, args: KueueArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:Kueue", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        namespace = k8s.core.v1.Namespace(f"{name}-namespace", metadata={
            "name": NAMESPACE, "labels": system_namespace_labels(NAMESPACE, "restricted")}, opts=child)
        chart, version, _ = args.images.chart("kueue")  # an OCI chart: no repository
        self.release = k8s.helm.v3.Release(
            f"{name}-release",
            name="kueue",
            chart=chart,
            version=version,
            namespace=namespace.metadata.name,
            values=chart_values(args),
            atomic=True,
            cleanup_on_fail=True,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace]),
        )
        after = pulumi.ResourceOptions(parent=self, depends_on=[self.release])
        self.flavors = {pool.name: k8s.apiextensions.CustomResource(
            f"{name}-flavor-{pool.name}", **kueue_object("ResourceFlavor", flavor_name(pool), flavor_spec(pool)),
            opts=after) for pool in args.pools}
        queue_deps = pulumi.ResourceOptions(parent=self, depends_on=[self.release, *self.flavors.values()])
        self.cluster_queues = {}
        for team in args.teams:
            cq = k8s.apiextensions.CustomResource(
                f"{name}-cq-{team.name}",
                **kueue_object("ClusterQueue", team.name, cluster_queue_spec(team, args.pools),
                               labels={"sahab.io/team": team.name}),
                opts=queue_deps)
            self.cluster_queues[team.name] = cq
            k8s.apiextensions.CustomResource(
                f"{name}-lq-{team.name}",
                **kueue_object("LocalQueue", team.name, {"clusterQueue": team.name}, namespace=team.name,
                               labels={"sahab.io/team": team.name}),
                opts=pulumi.ResourceOptions(parent=self, depends_on=[cq]))
        self.namespace = namespace.metadata.name
        self.register_outputs({"namespace": self.namespace, "release": self.release.name,
                               "queues": sorted(self.cluster_queues)})

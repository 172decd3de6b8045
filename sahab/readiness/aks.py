"""AKS clusters and their agent pools (the managed cluster's own profiles and separate AgentPool resources)."""

from __future__ import annotations

from typing import Any

from sahab.components import accelerators
from sahab.engine import PlannedResource
from sahab.readiness import allocatable
from sahab.readiness.common import integer, of_type, string_labels, taint_from_string, unknown, value
from sahab.readiness.readiness_types import Cluster, Pool

MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
AGENT_POOL = "azure-native:containerservice:AgentPool"


def key(name: str) -> str:
    return f"aks/{name}"


def clusters(resources: list[PlannedResource]) -> tuple[dict[str, Cluster], dict[str, str]]:
    found: dict[str, Cluster] = {}
    anchors: dict[str, str] = {}
    for res in of_type(resources, MANAGED_CLUSTER):
        name = str(value(res, "resourceName") or res.name)
        cluster = found[key(name)] = Cluster(key(name), name, "aks", anchor=res)
        anchors[res.urn] = key(name)
        for profile in res.inputs.get("agentPoolProfiles") or []:
            cluster.pools.append(pool(profile, str(profile.get("name") or ""), res.urn))
    by_urn = {found[k].anchor.urn: k for k in found if found[k].anchor is not None}
    for res in of_type(resources, AGENT_POOL):
        # In a preview the cluster's name is often unknown; the pool's dependency on it still names the cluster.
        owner = next((by_urn[u] for u in res.property_dependencies.get("resourceName", []) if u in by_urn), None)
        name = found[owner].name if owner else str(value(res, "resourceName") or "")
        cluster = found.setdefault(key(name), Cluster(key(name), name, "aks"))
        cluster.pools.append(pool(res.inputs, str(res.inputs.get("agentPoolName") or res.name), res.urn))
    return found, anchors


def pool(inputs: dict[str, Any], agent_pool: str, source: str) -> Pool:
    vm_size = str(inputs.get("vmSize") or "")
    mode = str(inputs.get("mode") or "User")
    labels = string_labels(inputs.get("nodeLabels"))
    name = labels.get(accelerators.LABEL_POOL) or agent_pool
    labels = {"kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": vm_size,
              "kubernetes.azure.com/agentpool": agent_pool, "kubernetes.azure.com/mode": mode.lower(), **labels}
    taints = [t for t in (taint_from_string(str(raw)) for raw in inputs.get("nodeTaints") or []) if t]
    autoscaled = bool(inputs.get("enableAutoScaling"))
    count = integer(inputs.get("count"), 1)
    minimum = integer(inputs.get("minCount"), count) if autoscaled else count
    maximum = integer(inputs.get("maxCount"), count) if autoscaled else count
    result = Pool(name=name, object=f"agent pool {agent_pool}", labels=labels, taints=taints, allocatable={},
                  min_nodes=minimum, max_nodes=maximum, desired_nodes=count, autoscaled=autoscaled, source=source)
    not_known = [k for k in ("nodeLabels", "nodeTaints", "count", "minCount", "maxCount", "enableAutoScaling",
                             "mode") if unknown(inputs.get(k))]
    if not_known:
        result.unknown = f"the preview does not know its {', '.join(not_known)} yet"
    shape = accelerators.instance_shape("azure", vm_size)
    if shape is None:
        result.shape_unknown = f"VM size {vm_size or '(none)'} is not in the hardware catalog"
        return result
    max_pods = integer(inputs.get("maxPods"), allocatable.AKS_DEFAULT_MAX_PODS)
    result.allocatable = allocatable.aks(shape.vcpus, shape.memory_gib, max_pods)
    result.gpus, result.gpu_memory_gib = shape.gpus, shape.gpu_memory_gib
    return result

"""AKS clusters and their agent pools (the managed cluster's own profiles and separate AgentPool resources): the
AKS kind's readiness adapter (sahab.readiness.clusters says what an adapter offers)."""

from __future__ import annotations

from typing import Any

from sahab.components import accelerators
from sahab.engine import PlannedResource
from sahab.readiness import allocatable
from sahab.readiness.common import get, integer, of_type, string_labels, taint_from_string, unknown, value
from sahab.readiness.network import Graph, blocks
from sahab.readiness.reach import Target
from sahab.readiness.readiness_types import Cluster, Pool
from sahab.readiness.zones import CloudPool, Index, known

MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
AGENT_POOL = "azure-native:containerservice:AgentPool"
KIND = "aks"  # the cluster kind this adapter reads (components.kinds.aks)
DISK_PROVISIONERS = ("disk.csi.azure.com", "kubernetes.io/azure-disk")
FILE_PROVISIONERS = ("file.csi.azure.com", "kubernetes.io/azure-file")
CSI_PROVISIONERS = DISK_PROVISIONERS + FILE_PROVISIONERS
# Storage classes AKS creates in every cluster (`default` is the default class).
STORAGE_CLASSES = {"default": "disk.csi.azure.com", "managed": "disk.csi.azure.com",
                   "managed-csi": "disk.csi.azure.com", "managed-premium": "disk.csi.azure.com",
                   "managed-csi-premium": "disk.csi.azure.com", "azurefile": "file.csi.azure.com",
                   "azurefile-csi": "file.csi.azure.com", "azurefile-premium": "file.csi.azure.com",
                   "azurefile-csi-premium": "file.csi.azure.com"}
DEFAULT_STORAGE_CLASSES = ("default",)


def key(name: str) -> str:
    return f"aks/{name}"


def clusters(resources: list[PlannedResource]) -> tuple[dict[str, Cluster], dict[str, str]]:
    found: dict[str, Cluster] = {}
    anchors: dict[str, str] = {}
    for res in of_type(resources, MANAGED_CLUSTER):
        name = str(value(res, "resourceName") or res.name)
        cluster = found[key(name)] = Cluster(key(name), name, KIND, anchor=res)
        anchors[res.urn] = key(name)
        for profile in res.inputs.get("agentPoolProfiles") or []:
            cluster.pools.append(pool(profile, str(profile.get("name") or ""), res.urn))
    by_urn = {found[k].anchor.urn: k for k in found if found[k].anchor is not None}
    for res in of_type(resources, AGENT_POOL):
        # In a preview the cluster's name is often unknown; the pool's dependency on it still names the cluster.
        owner = next((by_urn[u] for u in res.property_dependencies.get("resourceName", []) if u in by_urn), None)
        name = found[owner].name if owner else str(value(res, "resourceName") or "")
        cluster = found.setdefault(key(name), Cluster(key(name), name, KIND))
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


# ---- what the checks ask of the kind ----------------------------------------------------------------------
def _network_profile(cluster: Cluster) -> dict[str, Any]:
    return (cluster.anchor.inputs.get("networkProfile") or {}) if cluster.anchor is not None else {}


def missing_cni(cluster: Cluster) -> str | None:
    if _network_profile(cluster).get("networkPlugin", "kubenet") != "none":
        return None
    return "no CNI: networkProfile.networkPlugin is none and no cilium/calico Helm release; nodes stay NotReady"


def unenforced_policies(cluster: Cluster) -> str | None:
    if _network_profile(cluster).get("networkPolicy") not in (None, "", "none"):
        return None
    return "networkProfile.networkPolicy is not set and no cilium/calico runs"


def reaches_max(cluster: Cluster) -> bool:
    """Only a pool's own enableAutoScaling grows it."""
    return False


def never_scales(cluster: Cluster, pool: Pool) -> str | None:
    if pool.desired_nodes == 0 and not pool.autoscaled:
        return "has no nodes and enableAutoScaling is off: it never gets a node"
    return None


def csi_unbacked(cluster: Cluster, provisioner: str) -> str | None:
    """The Azure disk and file CSI drivers run on AKS clusters, unless the cluster's storageProfile turns one off."""
    if cluster.kind != KIND:
        return "an Azure CSI driver runs only on AKS"
    driver = "diskCSIDriver" if provisioner in DISK_PROVISIONERS else "fileCSIDriver"
    profile = cluster.anchor.inputs.get("storageProfile") if cluster.anchor is not None else None
    if get(profile, driver, "enabled") is False:
        return f"storageProfile.{driver}.enabled is false"
    return None


def api_target(graph: Graph, cluster: Cluster) -> Target | None:
    anchor = cluster.anchor
    net = graph.net_of(anchor, "agentPoolProfiles")
    if net is None:
        return None
    access = anchor.inputs.get("apiServerAccessProfile") or {}
    private = access.get("enablePrivateCluster") is True
    return Target(f"the API server of {cluster.name}", cluster.name, net, name=f"api.{net.region}.azmk8s.io",
                  published=access.get("enablePrivateClusterPublicFQDN") is not False,
                  public=not private, public_cidrs=blocks(access.get("authorizedIPRanges") or []) or None)


def cloud_pool(cluster: Cluster, pool: Pool, res: PlannedResource, index: Index) -> CloudPool | None:
    """An agent pool's `availabilityZones` (none: regional), in its cluster's location."""
    if res.type == MANAGED_CLUSTER:  # a profile of the cluster itself (the system pool)
        agent = pool.labels.get("kubernetes.azure.com/agentpool")
        inputs = next((p for p in res.inputs.get("agentPoolProfiles") or [] if p.get("name") == agent), {})
    else:
        inputs = res.inputs
    region = index.region(cluster.anchor, "location") if cluster.anchor is not None else ""
    region = region or index.region(res, "location")
    zones = inputs.get("availabilityZones") or []
    return CloudPool(cluster.name, pool.name, "azure", region, known([inputs.get("vmSize")]),
                     tuple(sorted(str(z) for z in zones if not unknown(z))))

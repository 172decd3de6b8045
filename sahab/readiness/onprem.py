"""On-prem kubeadm clusters: Sahab's `sahab:onprem:NodePool` components, whose inputs describe their nodes.

The inputs (the on-prem node shape contract): `{"cluster", "accelerator", "labels", "taints": [{"key", "value",
"effect"}], "nodes": [{"host", "cpu", "memoryGi", "gpus"}], "controlPlane"}`. Nodes of different shapes in one
pool become one `Pool` per shape, under the pool's name. The on-prem kind's readiness adapter
(sahab.readiness.clusters says what an adapter offers)."""

from __future__ import annotations

from sahab.components import accelerators
from sahab.engine import PlannedResource
from sahab.readiness import allocatable
from sahab.readiness.common import integer, of_type, string_labels, taint_from_mapping, unknown
from sahab.readiness.network import Graph
from sahab.readiness.reach import Target
from sahab.readiness.readiness_types import Cluster, Pool
from sahab.readiness.zones import CloudPool, Index

CLUSTER = "sahab:onprem:Cluster"
NODE_POOL = "sahab:onprem:NodePool"
CSI_PROVISIONERS: tuple[str, ...] = ()  # volumes come from Sahab's local-path provisioner, a release on the cluster
STORAGE_CLASSES: dict[str, str] = {}  # kubeadm creates none
DEFAULT_STORAGE_CLASSES: tuple[str, ...] = ()


def clusters(resources: list[PlannedResource]) -> tuple[dict[str, Cluster], dict[str, str]]:
    by_urn = {r.urn: r for r in resources}
    control_planes = of_type(resources, CLUSTER)
    found: dict[str, Cluster] = {}
    anchors: dict[str, str] = {}
    for res in of_type(resources, NODE_POOL):
        anchor = _control_plane_of(res, by_urn, control_planes)
        name = str(res.inputs.get("cluster") or (anchor.name if anchor else res.name))
        key = f"onprem/{anchor.urn if anchor else name}"
        cluster = found.setdefault(key, Cluster(key, name, "onprem", anchor=anchor))
        if anchor is not None:
            anchors[anchor.urn] = key
        cluster.pools.extend(pools(res))
    for anchor in control_planes:
        if anchor.urn not in anchors:  # a control plane with no pools in the plan
            key = f"onprem/{anchor.urn}"
            found[key] = Cluster(key, anchor.name, "onprem", anchor=anchor)
            anchors[anchor.urn] = key
    return found, anchors


def _control_plane_of(pool: PlannedResource, by_urn: dict[str, PlannedResource],
                      control_planes: list[PlannedResource]) -> PlannedResource | None:
    """The control plane a pool joins: the one it depends on (pools wait for kubeadm init), else the one whose
    name ends with the pool's `cluster` input."""
    for dep in pool.dependencies:
        res = by_urn.get(dep)
        while res is not None:
            if res.type == CLUSTER:
                return res
            res = by_urn.get(res.parent or "")
    cluster = str(pool.inputs.get("cluster") or "")
    named = [c for c in control_planes if cluster and (c.name == cluster or c.name.endswith(f"-{cluster}"))]
    return named[0] if len(named) == 1 else None


def pools(res: PlannedResource) -> list[Pool]:
    inputs = res.inputs
    labels = {"kubernetes.io/os": "linux", **string_labels(inputs.get("labels"))}
    if inputs.get("controlPlane") is True:  # kubeadm labels its control-plane nodes
        labels["node-role.kubernetes.io/control-plane"] = ""
    name = labels.get(accelerators.LABEL_POOL) or res.name
    taints = [t for t in (taint_from_mapping(raw) for raw in inputs.get("taints") or []) if t]
    accelerator = str(inputs.get("accelerator") or labels.get(accelerators.LABEL_ACCELERATOR) or "cpu")
    nodes = [n for n in inputs.get("nodes") or [] if isinstance(n, dict)]
    if not nodes:
        return [Pool(name=name, object=f"node pool {name}", labels=labels, taints=taints, allocatable={},
                     min_nodes=0, max_nodes=0, desired_nodes=0,
                     shape_unknown="the plan does not describe its nodes (no `nodes` input)", source=res.urn,
                     described=bool(inputs.get("labels")))]
    shapes: dict[tuple[int, int, int], list[str]] = {}
    for node in nodes:
        shape = (integer(node.get("cpu")), integer(node.get("memoryGi")), integer(node.get("gpus")))
        shapes.setdefault(shape, []).append(str(node.get("host") or "?"))
    not_known = [k for k in ("labels", "taints", "controlPlane", "accelerator", "nodes") if unknown(inputs.get(k))]
    result = []
    for (cpus, memory_gib, gpus), hosts in shapes.items():
        count = len(hosts)
        pool = Pool(name=name, object=f"node pool {name}", labels=labels, taints=taints, allocatable={},
                    min_nodes=count, max_nodes=count, desired_nodes=count, gpus=gpus, hosts=tuple(hosts),
                    gpu_memory_gib=accelerators.MIG_GPU_MEMORY_GIB.get(accelerator, 0) if gpus else 0, source=res.urn)
        if cpus <= 0 or memory_gib <= 0:
            pool.shape_unknown = "its nodes' CPUs and memory are not in the plan"
        else:
            pool.allocatable = allocatable.onprem(cpus, memory_gib)
        if not_known:
            pool.unknown = f"the preview does not know its {', '.join(not_known)} yet"
        result.append(pool)
    return result


# ---- what the checks ask of the kind ----------------------------------------------------------------------
def missing_cni(cluster: Cluster) -> str | None:
    return "no CNI: no cilium or calico Helm release on this kubeadm cluster; nodes stay NotReady"


def unenforced_policies(cluster: Cluster) -> str | None:
    return "no cilium or calico Helm release enforces them"


def reaches_max(cluster: Cluster) -> bool:
    """A pool's nodes are the site's hosts: every one of them is a node."""
    return True


def never_scales(cluster: Cluster, pool: Pool) -> str | None:
    return None  # nothing scales: the pool has the hosts it lists


def api_target(graph: Graph, cluster: Cluster) -> Target | None:
    return None  # on the sites' own networks: the hybrid reach checks judge the clouds'


def cloud_pool(cluster: Cluster, pool: Pool, res: PlannedResource, index: Index) -> CloudPool | None:
    return None  # the sites' hosts: no cloud sells them

"""EKS clusters and their managed node groups, read from the plan (pulumi-aws resources)."""

from __future__ import annotations

from components import catalog
from sahab.engine import PlannedResource
from sahab.readiness import allocatable
from sahab.readiness.common import integer, of_type, string_labels, taint_from_mapping, unknown, value
from sahab.readiness.model import Cluster, Pool, Taint

CLUSTER = "aws:eks/cluster:Cluster"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
ADDON = "aws:eks/addon:Addon"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}


def key(name: str) -> str:
    return f"eks/{name}"


def clusters(resources: list[PlannedResource]) -> tuple[dict[str, Cluster], dict[str, str]]:
    """Clusters by key, and the URN of each cluster resource -> its key (how providers find their cluster)."""
    found: dict[str, Cluster] = {}
    anchors: dict[str, str] = {}
    for res in of_type(resources, CLUSTER):
        name = str(value(res, "name") or res.name)
        found[key(name)] = Cluster(key(name), name, "eks", anchor=res)
        anchors[res.urn] = key(name)
    templates = {t.id: t for t in of_type(resources, LAUNCH_TEMPLATE) if t.id}

    def cluster_name(res: PlannedResource) -> str:
        # In a preview the cluster's name may be unknown; the dependency on the cluster still names it.
        owner = next((anchors[u] for u in res.property_dependencies.get("clusterName", []) if u in anchors), None)
        return found[owner].name if owner else str(res.inputs.get("clusterName") or "")

    for group in of_type(resources, NODE_GROUP):
        name = cluster_name(group)
        cluster = found.setdefault(key(name), Cluster(key(name), name, "eks"))
        cluster.pools.append(pool(group, templates))
    for addon in of_type(resources, ADDON):
        cluster = found.get(key(cluster_name(addon)))
        if cluster is not None:
            cluster.addons[str(addon.inputs.get("addonName"))] = addon
    return found, anchors


def pool(group: PlannedResource, templates: dict[str, PlannedResource]) -> Pool:
    inputs = group.inputs
    template = templates.get(str((inputs.get("launchTemplate") or {}).get("id")))
    instance_types = inputs.get("instanceTypes") or ([template.inputs.get("instanceType")] if template else [])
    instance_type = str(instance_types[0]) if instance_types else ""
    scaling = inputs.get("scalingConfig") or {}
    labels = string_labels(inputs.get("labels"))
    name = labels.get(catalog.LABEL_POOL) or str(inputs.get("nodeGroupName") or "").strip() or \
        str(inputs.get("nodeGroupNamePrefix") or group.name).rstrip("-")
    labels = {"kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": instance_type,
              "eks.amazonaws.com/capacityType": str(inputs.get("capacityType") or "ON_DEMAND"), **labels}
    taints = [t for t in (taint_from_mapping(raw) for raw in inputs.get("taints") or []) if t]
    taints = [Taint(t.key, t.value, EFFECTS.get(t.effect, t.effect)) for t in taints]
    shape = catalog.instance_shape("aws", instance_type)
    minimum, maximum = integer(scaling.get("minSize")), integer(scaling.get("maxSize"))
    result = Pool(name=name, object=f"node group {name}", labels=labels, taints=taints, allocatable={},
                  min_nodes=minimum, max_nodes=maximum, desired_nodes=integer(scaling.get("desiredSize"), minimum),
                  source=group.urn)
    not_known = [k for k in ("labels", "taints", "scalingConfig") if unknown(inputs.get(k))]
    if not_known:
        result.unknown = f"the preview does not know its {', '.join(not_known)} yet"
    if shape is None:
        result.shape_unknown = f"instance type {instance_type or '(none)'} is not in the hardware catalog"
        return result
    result.allocatable = allocatable.eks(shape.vcpus, shape.memory_gib,
                                         catalog.eks_max_pods(instance_type, shape.vcpus))
    result.gpus, result.gpu_memory_gib = shape.gpus, shape.gpu_memory_gib
    return result

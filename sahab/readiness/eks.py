"""EKS clusters and their managed node groups, read from the plan (pulumi-aws resources): the EKS kind's readiness
adapter (sahab.readiness.clusters says what an adapter offers)."""

from __future__ import annotations

import base64
import json
import re

from sahab.components import accelerators
from sahab.engine import PlannedResource
from sahab.readiness import allocatable
from sahab.readiness.checks import has_autoscaler
from sahab.readiness.common import get, integer, of_type, string_labels, taint_from_mapping, unknown, value
from sahab.readiness.network import SECURITY_GROUP, SUBNET, Graph, blocks
from sahab.readiness.quantities import MiB
from sahab.readiness.reach import Target
from sahab.readiness.readiness_types import Cluster, Pool, Taint
from sahab.readiness.zones import CloudPool, Index, known

CLUSTER = "aws:eks/cluster:Cluster"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
ADDON = "aws:eks/addon:Addon"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}
KIND = "eks"  # the cluster kind this adapter reads (components.kinds.eks)
EBS_CSI_DRIVER = "aws-ebs-csi-driver"
CSI_PROVISIONERS = ("ebs.csi.aws.com", "kubernetes.io/aws-ebs")
STORAGE_CLASSES: dict[str, str] = {}  # EKS creates none Sahab relies on
DEFAULT_STORAGE_CLASSES: tuple[str, ...] = ()


def key(name: str) -> str:
    return f"eks/{name}"


def clusters(resources: list[PlannedResource]) -> tuple[dict[str, Cluster], dict[str, str]]:
    """Clusters by key, and the URN of each cluster resource -> its key (how providers find their cluster)."""
    found: dict[str, Cluster] = {}
    anchors: dict[str, str] = {}
    for res in of_type(resources, CLUSTER):
        name = str(value(res, "name") or res.name)
        found[key(name)] = Cluster(key(name), name, KIND, anchor=res)
        anchors[res.urn] = key(name)
    # By id (deployed plans) and by URN (a preview, where the node group's template id is not known yet).
    templates = {**{t.id: t for t in of_type(resources, LAUNCH_TEMPLATE) if t.id},
                 **{t.urn: t for t in of_type(resources, LAUNCH_TEMPLATE)}}

    def cluster_name(res: PlannedResource) -> str:
        # In a preview the cluster's name may be unknown; the dependency on the cluster still names it.
        owner = next((anchors[u] for u in res.property_dependencies.get("clusterName", []) if u in anchors), None)
        return found[owner].name if owner else str(res.inputs.get("clusterName") or "")

    for group in of_type(resources, NODE_GROUP):
        name = cluster_name(group)
        cluster = found.setdefault(key(name), Cluster(key(name), name, KIND))
        cluster.pools.append(pool(group, templates))
    for addon in of_type(resources, ADDON):
        cluster = found.get(key(cluster_name(addon)))
        if cluster is not None:
            cluster.addons[str(addon.inputs.get("addonName"))] = addon
    return found, anchors


def pool(group: PlannedResource, templates: dict[str, PlannedResource]) -> Pool:
    inputs = group.inputs
    template = templates.get(str((inputs.get("launchTemplate") or {}).get("id"))) or next(
        (templates[u] for u in group.property_dependencies.get("launchTemplate", []) if u in templates), None)
    instance_types = inputs.get("instanceTypes") or ([template.inputs.get("instanceType")] if template else [])
    instance_type = str(instance_types[0]) if instance_types else ""
    scaling = inputs.get("scalingConfig") or {}
    labels = string_labels(inputs.get("labels"))
    name = labels.get(accelerators.LABEL_POOL) or str(inputs.get("nodeGroupName") or "").strip() or \
        str(inputs.get("nodeGroupNamePrefix") or group.name).rstrip("-")
    labels = {"kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": instance_type,
              "eks.amazonaws.com/capacityType": str(inputs.get("capacityType") or "ON_DEMAND"), **labels}
    taints = [t for t in (taint_from_mapping(raw) for raw in inputs.get("taints") or []) if t]
    taints = [Taint(t.key, t.value, EFFECTS.get(t.effect, t.effect)) for t in taints]
    shape = accelerators.instance_shape("aws", instance_type)
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
                                         accelerators.eks_max_pods(instance_type, shape.vcpus))
    result.gpus, result.gpu_memory_gib = shape.gpus, shape.gpu_memory_gib
    if template is not None:
        _fabric(result, template)
    return result


EFA_RESOURCE = "vpc.amazonaws.com/efa"
EFA_PLUGIN_CHART = "aws-efa-k8s-device-plugin"
_HUGEPAGES = re.compile(r"vm\.nr_hugepages\s*=\s*(\d+)")


def _fabric(pool: Pool, template: PlannedResource) -> None:
    """What the launch template gives each node beyond its shape: EFA interfaces (advertised once the EFA device
    plugin runs, `advertise_efa`) and 2 MiB hugepages reserved at boot by its user data, which the kubelet
    reports as `hugepages-2Mi` and takes out of allocatable memory."""
    interfaces = template.inputs.get("networkInterfaces") or []
    pool.efa = sum(1 for nic in interfaces if isinstance(nic, dict) and nic.get("interfaceType") in ("efa", "efa-only"))
    data = template.inputs.get("userData")
    if isinstance(data, str) and not unknown(data):
        try:
            text = base64.b64decode(data).decode(errors="replace")
        except ValueError:
            text = ""
        pages = max((int(n) for n in _HUGEPAGES.findall(text)), default=0)
        if pages:
            pool.allocatable["hugepages-2Mi"] = pages * 2 * MiB
            pool.allocatable["memory"] -= pages * 2 * MiB


def advertise_efa(cluster: Cluster) -> None:
    """EFA devices are schedulable only where AWS's EFA device plugin runs on the cluster."""
    if not any(p.efa for p in cluster.pools):
        return
    if EFA_PLUGIN_CHART in cluster.charts():
        for pool in cluster.pools:
            if pool.efa and pool.allocatable:
                pool.allocatable[EFA_RESOURCE] = pool.efa
    elif cluster.charts_unknown():
        for pool in cluster.pools:
            if pool.efa:
                pool.unknown = "the preview does not know every Helm chart on the cluster yet (the EFA plugin?)"


# ---- what the checks ask of the kind ----------------------------------------------------------------------
def missing_cni(cluster: Cluster) -> str | None:
    self_managed = cluster.anchor is not None and cluster.anchor.inputs.get("bootstrapSelfManagedAddons") \
        is not False
    if "vpc-cni" in cluster.addons or self_managed:
        return None
    return "no CNI: neither the vpc-cni add-on nor a cilium/calico Helm release; nodes stay NotReady"


def unenforced_policies(cluster: Cluster) -> str | None:
    addon = cluster.addons.get("vpc-cni")
    raw = addon.inputs.get("configurationValues") if addon is not None else None
    if unknown(raw):
        return None
    try:
        settings = json.loads(raw) if isinstance(raw, str) else (raw or {})
    except json.JSONDecodeError:
        settings = {}
    if str(settings.get("enableNetworkPolicy", "")).lower() == "true":
        return None
    return "the vpc-cni add-on does not enforce NetworkPolicy (configurationValues enableNetworkPolicy is not " \
           "\"true\") and no cilium/calico runs"


def reaches_max(cluster: Cluster) -> bool:
    """An autoscaler running on the cluster grows each node group up to its maximum."""
    return has_autoscaler(cluster)


def never_scales(cluster: Cluster, pool: Pool) -> str | None:
    if pool.min_nodes == 0 and pool.max_nodes > 0 and not has_autoscaler(cluster) and not cluster.charts_unknown():
        return ("scales from zero but no autoscaler runs on the cluster (no cluster-autoscaler or karpenter Helm "
                "release): it never gets a node")
    return None


def csi_unbacked(cluster: Cluster, provisioner: str) -> str | None:
    """EBS volumes are provisioned by the EBS CSI driver, an add-on or chart of an EKS cluster."""
    if cluster.kind == KIND and (EBS_CSI_DRIVER in cluster.addons or EBS_CSI_DRIVER in cluster.charts()):
        return None
    return "no EBS CSI driver (the aws-ebs-csi-driver add-on or chart)"


def api_target(graph: Graph, cluster: Cluster) -> Target | None:
    anchor = cluster.anchor
    subnets = graph.deps(anchor, "vpcConfig", SUBNET)
    net = graph.net_of_subnets(subnets)
    if net is None:
        return None
    vpc = anchor.inputs.get("vpcConfig") or {}
    return Target(f"the API server of {cluster.name}", cluster.name, net,
                  groups=graph.deps(anchor, "vpcConfig", SECURITY_GROUP), subnets=subnets,
                  name=f"api.{net.region}.eks.amazonaws.com", published=True,
                  public=vpc.get("endpointPublicAccess") is True,
                  public_cidrs=blocks(vpc.get("publicAccessCidrs") or []) or None)


def cloud_pool(cluster: Cluster, pool: Pool, res: PlannedResource, index: Index) -> CloudPool | None:
    """A managed node group launches in its subnets' zones."""
    types = res.inputs.get("instanceTypes")
    if not types:
        template = index.templates.get(str(get(res.inputs, "launchTemplate", "id") or ""))
        types = [template.inputs.get("instanceType")] if template else []
    return CloudPool(cluster.name, pool.name, "aws", index.region(res), known(types),
                     index.subnet_zones(res, "subnetIds"))

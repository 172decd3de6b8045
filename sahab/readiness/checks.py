"""The checks, one per way a fleet fails to come up; each returns the problems it finds on one cluster. What
differs between cluster kinds each asks the kind's readiness adapter (sahab.readiness.clusters.adapter)."""

from __future__ import annotations

import math
from typing import Any

import yaml

from sahab.components.kinds import kinds
from sahab.readiness.clusters import adapter
from sahab.readiness.common import get, unknown
from sahab.readiness.quantities import amount, show
from sahab.readiness.readiness_types import Cluster, Placement, PodGroup, Pool, Problem
from sahab.readiness.scheduling import UNKNOWN_SHAPE, misfits, pods_per_node
from sahab.readiness.workloads import claims, describe

CNI_CHARTS = ("cilium", "calico", "tigera-operator", "flannel")
POLICY_CHARTS = ("cilium", "calico", "tigera-operator")
AUTOSCALER_CHARTS = ("cluster-autoscaler", "karpenter")
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def _problem(cluster: Cluster, obj: str, text: str) -> Problem:
    return Problem(cluster.name, obj, text)


# ---- networking -----------------------------------------------------------------------------------------
def cni(cluster: Cluster) -> list[Problem]:
    charts = cluster.charts()
    if any(c in charts for c in CNI_CHARTS) or cluster.charts_unknown():
        return []
    why = adapter(cluster.kind).missing_cni(cluster)
    return [_problem(cluster, f"cluster {cluster.name}", why)] if why else []


def network_policies(cluster: Cluster, mine: set[str]) -> list[Problem]:
    policies = [p for p in cluster.of_kind("NetworkPolicy") if p.urn in mine]
    if not policies or any(c in cluster.charts() for c in POLICY_CHARTS) or cluster.charts_unknown():
        return []
    why = adapter(cluster.kind).unenforced_policies(cluster)
    if not why:
        return []
    return [_problem(cluster, describe(policies[0]), f"{len(policies)} NetworkPolicies enforce nothing: {why}")]


# ---- capacity ---------------------------------------------------------------------------------------------
def has_autoscaler(cluster: Cluster) -> bool:
    return any(c in cluster.charts() for c in AUTOSCALER_CHARTS)


def available_nodes(cluster: Cluster, pool: Pool) -> int:
    """Nodes the pool can have: its ceiling where something scales it, else what it starts with."""
    if pool.autoscaled or adapter(cluster.kind).reaches_max(cluster):
        return pool.max_nodes
    return pool.desired_nodes


def scale_from_zero(cluster: Cluster, mine: set[str]) -> list[Problem]:
    problems = []
    for pool in (p for p in cluster.pools if p.source in mine and not p.unknown):
        why = adapter(cluster.kind).never_scales(cluster, pool)
        if why:
            problems.append(_problem(cluster, pool.object, why))
    return problems


def place(cluster: Cluster, group: PodGroup) -> tuple[list[Placement], list[Problem]]:
    """Where the group's pods go: pools that fit, in plan order, up to the nodes each can have."""
    if group.unknown:
        return [], []  # a preview does not know what its pods ask for or where they may go: no verdict
    fitting, refused, undecided = [], [], False
    for pool in cluster.pools:
        reasons = misfits(group, pool)
        if reasons and reasons[0].startswith(UNKNOWN_SHAPE):
            undecided = True  # it may hold the pods; the plan does not say: no verdict either way
        elif reasons:
            refused.append(f"pool {pool.label}: {'; '.join(reasons)}")
        else:
            fitting.append(pool)
    if not fitting and undecided:
        return [], []
    if not fitting:
        detail = " | ".join(refused) or "the cluster has no pools"
        return [], [_problem(cluster, group.workload, f"no node pool fits its pods: {detail}")]
    left, used = group.pods, {}
    for pool in fitting:
        per_node = pods_per_node(group, pool)
        nodes = min(available_nodes(cluster, pool), math.ceil(left / per_node))
        if nodes > 0:
            used[pool.name] = used.get(pool.name, 0) + nodes
            left -= min(left, nodes * per_node)
        if left == 0:
            break
    placements = [Placement(group.workload, cluster.name, name, nodes) for name, nodes in used.items()]
    if left and not undecided:
        spread = "one per node" if group.one_per_node else "as many per node as fit"
        room = ", ".join(f"pool {p.label} up to {available_nodes(cluster, p)} node(s)" for p in fitting)
        elsewhere = f"; elsewhere: {' | '.join(refused)}" if refused else ""
        return placements, [_problem(cluster, group.workload, f"needs {group.pods} pods ({spread}) but only "
                                     f"{group.pods - left} fit: {room}{elsewhere}")]
    return placements, []


# ---- storage ------------------------------------------------------------------------------------------------
def storage(cluster: Cluster, groups: list[PodGroup], mine: set[str]) -> list[Problem]:
    own = adapter(cluster.kind)  # the classes every cluster of its kind has
    classes: dict[str, str] = dict(own.STORAGE_CLASSES)
    defaults = list(own.DEFAULT_STORAGE_CLASSES)
    names_unknown = defaults_unknown = False  # a class a preview does not know the name (or default mark) of
    for res in cluster.of_kind("StorageClass"):
        name = str(get(res.inputs, "metadata", "name") or res.name)
        names_unknown = names_unknown or unknown(name)
        classes[name] = str(res.inputs.get("provisioner") or "")
        annotation = get(res.inputs, "metadata", "annotations", DEFAULT_CLASS_ANNOTATION)
        defaults_unknown = defaults_unknown or unknown(annotation) or unknown(name)
        if str(annotation).lower() == "true":
            defaults.append(name)
    problems, judged = [], {}
    for what, class_name in claims(cluster, groups, mine):
        if unknown(class_name):
            continue
        if not class_name:
            if defaults_unknown:
                continue
            if not defaults:
                problems.append(_problem(cluster, what, "asks for the default StorageClass but the cluster has "
                                         "none: the claim stays Pending"))
                continue
            class_name = defaults[-1]
        if class_name not in classes:
            if names_unknown:
                continue
            problems.append(_problem(cluster, what, f"StorageClass {class_name} does not exist on the cluster: "
                                     "the claim stays Pending"))
            continue
        provisioner = classes[class_name]
        if unknown(provisioner):
            continue
        if provisioner not in judged:
            judged[provisioner] = _unbacked(cluster, provisioner)
        if judged[provisioner]:
            problems.append(_problem(cluster, what, f"StorageClass {class_name} ({provisioner}): "
                                     f"{judged[provisioner]}; the claim stays Pending"))
    return problems


def _unbacked(cluster: Cluster, provisioner: str) -> str | None:
    """Why nothing on the cluster provisions volumes for `provisioner` (None: something does)."""
    for kind in kinds():  # a cloud's CSI driver: its kind's adapter judges it, on any cluster
        owner = adapter(kind)
        if provisioner in owner.CSI_PROVISIONERS:
            return owner.csi_unbacked(cluster, provisioner)
    undecided = False
    for res in cluster.objects:
        kind = res.type.rsplit(":", 1)[-1]
        if kind in ("Deployment", "StatefulSet", "DaemonSet"):
            spec = res.inputs.get("spec")
        elif res.type.startswith("kubernetes:helm.sh/"):
            spec = res.inputs.get("values")
        else:
            continue
        if _mentions(spec, provisioner):
            return None
        undecided = undecided or unknown(spec)  # what a preview does not know yet may name it
    return None if undecided else "no provisioner of that name runs on the cluster"


def _mentions(data: Any, text: str) -> bool:
    if isinstance(data, dict):
        return any(_mentions(v, text) for v in data.values())
    if isinstance(data, list):
        return any(_mentions(v, text) for v in data)
    return data == text


# ---- Kueue --------------------------------------------------------------------------------------------------
def kueue(cluster: Cluster, group: PodGroup, placed_on: list[Pool]) -> list[Problem]:
    queue = group.labels.get(QUEUE_LABEL)
    if not queue or unknown(queue) or group.unknown:
        return []
    if "kueue" not in cluster.charts():
        if cluster.charts_unknown():
            return []
        return [_problem(cluster, group.workload, f"names Kueue queue {queue} but Kueue is not installed "
                         "(no Helm release of chart kueue): the Job stays suspended")]
    local = next((r for r in cluster.of_kind("LocalQueue") if get(r.inputs, "metadata", "name") == queue and
                  (get(r.inputs, "metadata", "namespace") or "default") == group.namespace), None)
    if local is None:
        if any(unknown(get(r.inputs, "metadata")) for r in cluster.of_kind("LocalQueue")):
            return []
        return [_problem(cluster, group.workload, f"names Kueue queue {queue} but namespace {group.namespace} has "
                         "no LocalQueue of that name: the Job stays suspended")]
    cq_name = get(local.inputs, "spec", "clusterQueue")
    if unknown(cq_name):
        return []
    cq = next((r for r in cluster.of_kind("ClusterQueue") if get(r.inputs, "metadata", "name") == cq_name), None)
    if cq is None:
        if any(unknown(get(r.inputs, "metadata", "name")) for r in cluster.of_kind("ClusterQueue")):
            return []
        return [_problem(cluster, describe(local), f"points to ClusterQueue {cq_name}, which does not exist: "
                         f"{group.workload} stays suspended")]
    excluded = _unquoted_prefixes(cluster.charts()["kueue"])
    needs = {r: v * group.pods for r, v in group.requests.items() if v and not r.startswith(excluded)}
    why = _admits(cluster, cq, needs, placed_on)
    return [_problem(cluster, group.workload, f"ClusterQueue {cq_name} cannot admit the whole job "
                     f"({group.pods} pods): {why}")] if why else []


def _unquoted_prefixes(release: Any) -> tuple[str, ...]:
    """Resources Kueue leaves out of quota: its Configuration's `resources.excludeResourcePrefixes`, from the
    chart values' `managerConfig.controllerManagerConfigYaml`."""
    text = get(release.inputs, "values", "managerConfig", "controllerManagerConfigYaml")
    try:
        config = yaml.safe_load(text) if isinstance(text, str) and not unknown(text) else None
    except yaml.YAMLError:
        config = None
    prefixes = get(config, "resources", "excludeResourcePrefixes", default=[]) or []
    return tuple(str(p) for p in prefixes if isinstance(p, str))


def _admits(cluster: Cluster, cq: Any, needs: dict[str, int], placed_on: list[Pool]) -> str | None:
    flavors = cluster.of_kind("ResourceFlavor")
    if unknown(get(cq.inputs, "spec")) or any(unknown([get(r.inputs, "metadata", "name"),
                                                      get(r.inputs, "spec", "nodeLabels")]) for r in flavors):
        return None  # a preview does not know the quota or the flavors yet: no verdict
    flavor_labels = {get(r.inputs, "metadata", "name"): get(r.inputs, "spec", "nodeLabels") or {}
                     for r in flavors}
    groups = get(cq.inputs, "spec", "resourceGroups") or []
    for resource in needs:
        if not any(resource in (g.get("coveredResources") or []) for g in groups):
            return f"it covers no {resource}"
    for group in groups:
        covered = [r for r in group.get("coveredResources") or [] if r in needs]
        if not covered:
            continue
        refusals = []
        for flavor in group.get("flavors") or []:
            name = flavor.get("name")
            labels = flavor_labels.get(name)
            if labels is None:
                refusals.append(f"flavor {name} has no ResourceFlavor")
                continue
            if placed_on and not any(labels.items() <= p.labels.items() for p in placed_on):
                refusals.append(f"flavor {name}'s node labels match none of the job's pools")
                continue
            quota = {q.get("name"): amount(q.get("name"), q.get("nominalQuota")) or 0
                     for q in flavor.get("resources") or []}
            short = [f"{show(r, needs[r])} > quota {show(r, quota.get(r, 0))}" for r in covered
                     if needs[r] > quota.get(r, 0)]
            if not short:
                refusals = []
                break
            refusals.append(f"flavor {name}: " + ", ".join(short))
        if refusals or not group.get("flavors"):
            return "; ".join(refusals) or "its resource group has no flavors"
    return None

"""The pods our Kubernetes objects would create, and the volume claims they and Helm values make."""

from __future__ import annotations

from typing import Any

from sahab.engine import PlannedResource
from sahab.readiness.common import get, integer, string_labels, unknown
from sahab.readiness.quantities import amount
from sahab.readiness.readiness_types import Cluster, PodGroup

HOSTNAME = "kubernetes.io/hostname"
# kind -> (path to the pod template spec inside the object's spec, where the pod count lives)
_TEMPLATES: dict[str, tuple[tuple[str, ...], str]] = {
    "Job": (("template", "spec"), "parallelism"),
    "Deployment": (("template", "spec"), "replicas"),
    "StatefulSet": (("template", "spec"), "replicas"),
    "ReplicaSet": (("template", "spec"), "replicas"),
    "CronJob": (("jobTemplate", "spec", "template", "spec"), "parallelism"),
}


def kind_of(res: PlannedResource) -> str:
    return res.type.rsplit(":", 1)[-1]


def describe(res: PlannedResource) -> str:
    """`Job ml-training/train-x`: how problems and placements name a Kubernetes object."""
    meta = res.inputs.get("metadata") or {}
    name = meta.get("name") or res.name
    return f"{kind_of(res)} {meta['namespace']}/{name}" if meta.get("namespace") else f"{kind_of(res)} {name}"


def pod_groups(cluster: Cluster) -> list[PodGroup]:
    defaults = _limit_range_defaults(cluster)
    groups = []
    for res in cluster.objects:
        if not res.custom or not res.type.startswith("kubernetes:"):
            continue
        kind = kind_of(res)
        spec = res.inputs.get("spec") or {}
        meta = res.inputs.get("metadata") or {}
        namespace = str(meta.get("namespace") or "default")
        if kind == "Pod":
            pod, count, template_labels, raw_count = spec, 1, string_labels(meta.get("labels")), 1
        elif kind in _TEMPLATES:
            path, count_field = _TEMPLATES[kind]
            pod = get(spec, *path, default=None)
            if not isinstance(pod, dict):
                continue
            raw_count = get(spec, "jobTemplate", "spec", "parallelism") if kind == "CronJob" else spec.get(count_field)
            count = integer(raw_count, 1)
            template_labels = string_labels(get(spec, *path[:-1], "metadata", "labels"))
        else:
            continue
        if count <= 0:
            continue
        group = PodGroup(
            workload=describe(res), namespace=namespace, pods=count,
            requests=pod_requests(pod, defaults.get(namespace, {})),
            node_selector=string_labels(pod.get("nodeSelector")),
            node_affinity=get(pod, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                              "nodeSelectorTerms"),
            tolerations=[t for t in pod.get("tolerations") or [] if isinstance(t, dict)],
            one_per_node=_one_per_node(pod, template_labels),
            labels=string_labels(meta.get("labels")), resource=res,
            unknown=unknown([raw_count, pod.get("nodeSelector"), pod.get("affinity"), pod.get("tolerations"),
                             [get(c, "resources") for c in [*(pod.get("containers") or []),
                                                            *(pod.get("initContainers") or [])]
                              if isinstance(c, dict)]]))
        group.claims = [(f"{group.workload} volume {name}", cls) for name, cls in _template_claims(kind, spec, pod)]
        groups.append(group)
    return groups


def pod_requests(pod: dict, defaults: dict[str, dict[str, int]]) -> dict[str, int]:
    """Effective pod requests: the sum over containers, or the largest init container where that is more.
    A container's missing request is its limit, else the namespace LimitRange's default."""
    def container(c: dict) -> dict[str, int]:
        requests = {k: amount(k, v) for k, v in (get(c, "resources", "requests") or {}).items()}
        for k, v in (get(c, "resources", "limits") or {}).items():
            requests.setdefault(k, amount(k, v))
        for k in ("cpu", "memory"):
            if k not in requests:
                fallback = defaults.get("defaultRequest", {}).get(k) or defaults.get("default", {}).get(k)
                if fallback:
                    requests[k] = fallback
        return {k: v for k, v in requests.items() if v}

    total: dict[str, int] = {}
    for c in pod.get("containers") or []:
        for k, v in container(c).items():
            total[k] = total.get(k, 0) + v
    for c in pod.get("initContainers") or []:
        for k, v in container(c).items():
            total[k] = max(total.get(k, 0), v)
    return total


def _one_per_node(pod: dict, template_labels: dict[str, str]) -> bool:
    """Required anti-affinity on the hostname against the workload's own pods: one pod per node."""
    for term in get(pod, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution") or []:
        selector = string_labels(get(term, "labelSelector", "matchLabels"))
        if term.get("topologyKey") == HOSTNAME and selector and selector.items() <= template_labels.items():
            return True
    return False


def _template_claims(kind: str, spec: dict, pod: dict) -> list[tuple[str, str | None]]:
    claims = []
    for volume in pod.get("volumes") or []:
        template = get(volume, "ephemeral", "volumeClaimTemplate", "spec")
        if isinstance(template, dict):
            claims.append((str(volume.get("name")), template.get("storageClassName")))
    if kind == "StatefulSet":
        for template in spec.get("volumeClaimTemplates") or []:
            claims.append((str(get(template, "metadata", "name")), get(template, "spec", "storageClassName")))
    return claims


def _limit_range_defaults(cluster: Cluster) -> dict[str, dict[str, dict[str, int]]]:
    """Per namespace: the Container LimitRange's `default` and `defaultRequest`, counted."""
    found: dict[str, dict[str, dict[str, int]]] = {}
    for res in cluster.of_kind("LimitRange"):
        namespace = str(get(res.inputs, "metadata", "namespace") or "default")
        for limit in get(res.inputs, "spec", "limits") or []:
            if limit.get("type") != "Container":
                continue
            for field in ("default", "defaultRequest"):
                counted = {k: amount(k, v) for k, v in (limit.get(field) or {}).items()}
                found.setdefault(namespace, {}).setdefault(field, {}).update(
                    {k: v for k, v in counted.items() if v})
    return found


def claims(cluster: Cluster, groups: list[PodGroup], mine: set[str]) -> list[tuple[str, str | None]]:
    """The volume claims of the plan's objects (`mine`) on the cluster: PVC objects, workload templates, and
    storage in Helm values."""
    found: list[tuple[str, str | None]] = []
    for res in (r for r in cluster.of_kind("PersistentVolumeClaim") if r.urn in mine):
        found.append((describe(res), get(res.inputs, "spec", "storageClassName")))
    for group in groups:
        found.extend(group.claims)
    for chart, release in ((c, r) for c, r in cluster.charts().items() if r.urn in mine):
        for where, storage_class in helm_claims(release.inputs.get("values")):
            found.append((f"Helm release {release.inputs.get('name') or chart} ({where})", storage_class))
    return found


def helm_claims(values: Any, path: str = "") -> list[tuple[str, str | None]]:
    """Volume claims chart values ask for: any `volumeClaimTemplate` (Prometheus operator storage specs, e.g.
    kube-prometheus-stack's storageSpec) and enabled `persistence` blocks (the common chart convention)."""
    found: list[tuple[str, str | None]] = []
    if isinstance(values, dict):
        template = values.get("volumeClaimTemplate")
        if isinstance(template, dict):
            found.append((path or "values", get(template, "spec", "storageClassName")))
        persistence = values.get("persistence")
        if isinstance(persistence, dict) and persistence.get("enabled") is True:
            found.append((f"{path}.persistence".lstrip("."), persistence.get("storageClass") or None))
        for k, v in values.items():
            if k not in ("volumeClaimTemplate", "persistence"):
                found.extend(helm_claims(v, f"{path}.{k}".lstrip(".")))
    elif isinstance(values, list):
        for i, v in enumerate(values):
            found.extend(helm_claims(v, f"{path}[{i}]"))
    return found

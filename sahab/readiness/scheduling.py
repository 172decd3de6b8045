"""Does a pod fit a pool's node, as the scheduler's filters decide: taints, node selector and required node
affinity, then requests against allocatable resources; and the device plugin's own refusal (time-slicing)."""

from __future__ import annotations

from typing import Any

from sahab.readiness.quantities import show
from sahab.readiness.readiness_types import PodGroup, Pool, Taint

UNKNOWN_SHAPE = "node shape unknown"


def tolerates(tolerations: list[dict[str, Any]], taint: Taint) -> bool:
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint.effect:
            continue
        operator = t.get("operator") or "Equal"
        if operator == "Exists" and (not t.get("key") or t["key"] == taint.key):
            return True
        if operator == "Equal" and t.get("key") == taint.key and str(t.get("value") or "") == taint.value:
            return True
    return False


def _expression(labels: dict[str, str], expr: dict[str, Any]) -> bool:
    key, operator, values = expr.get("key"), expr.get("operator"), [str(v) for v in expr.get("values") or []]
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and values:
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if operator == "Gt" else have < want
    return False


def affinity_matches(labels: dict[str, str], terms: list[Any] | None) -> bool:
    """Required node affinity: any term whose expressions all hold (an empty list of terms matches nothing)."""
    if terms is None:
        return True
    return any(isinstance(term, dict) and all(_expression(labels, e) for e in term.get("matchExpressions") or [])
               for term in terms)


def misfits(group: PodGroup, pool: Pool) -> list[str]:
    """Why one of the group's pods cannot run on a node of the pool (empty: it can)."""
    if not pool.described:
        return [f"{UNKNOWN_SHAPE}: {pool.shape_unknown}"]
    if pool.unknown:
        return [f"{UNKNOWN_SHAPE}: {pool.unknown}"]
    reasons = []
    for taint in pool.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not tolerates(group.tolerations, taint):
            shown = f"{taint.key}={taint.value}:{taint.effect}" if taint.value else f"{taint.key}:{taint.effect}"
            reasons.append(f"taint {shown} not tolerated")
    wrong = {k: v for k, v in group.node_selector.items() if pool.labels.get(k) != v}
    if wrong:
        reasons.append("nodeSelector " + ", ".join(f"{k}={v}" for k, v in sorted(wrong.items())) +
                       " does not match its node labels")
    if not affinity_matches(pool.labels, group.node_affinity):
        reasons.append("required node affinity does not match its node labels")
    if pool.shape_unknown:
        return reasons or [f"{UNKNOWN_SHAPE}: {pool.shape_unknown}"]
    for resource, wanted in sorted(group.requests.items()):
        offered = pool.allocatable.get(resource, 0)
        if wanted > offered:
            why = f"asks {show(resource, wanted)}, a node has {show(resource, offered)} allocatable"
            if resource.startswith("nvidia.com/") and pool.gpu_rule and offered == 0:
                why += f" ({pool.gpu_rule})"
            reasons.append(why)
        elif pool.max_gpu_request is not None and resource.startswith("nvidia.com/") and \
                wanted > pool.max_gpu_request:
            reasons.append(f"asks {show(resource, wanted)}, but {pool.gpu_rule}")
    return reasons


def pods_per_node(group: PodGroup, pool: Pool) -> int:
    if group.one_per_node:
        return 1
    fits = [pool.allocatable.get(r, 0) // want for r, want in group.requests.items() if want > 0]
    return max(1, min([*fits, pool.allocatable.get("pods", 110)]))

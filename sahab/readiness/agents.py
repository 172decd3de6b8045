"""Labels that node agents give the nodes they run on, as the scheduler will see them once the agents ran.

A DaemonSet annotated `sahab.io/node-labels` (a JSON object) declares the labels its pods write on their own
node when it is healthy: Sahab's node validator writes `sahab.io/validation=passed`, which training Jobs
require. A pool gets those labels when the agent's pods fit its nodes (taints, selector, affinity as judged
on the pool's own labels, requests against allocatable). An agent aimed at a pool (selector and affinity
match) that cannot run there labels nothing: that is a problem of its own, and what requires its labels then
fits no pool, which is what would happen on the cluster.
"""

from __future__ import annotations

import json

from sahab.readiness.common import get, string_labels, unknown
from sahab.readiness.readiness_types import Cluster, PodGroup, Problem
from sahab.readiness.scheduling import UNKNOWN_SHAPE, affinity_matches, misfits, tolerates
from sahab.readiness.workloads import describe, kind_of, pod_requests

ANNOTATION = "sahab.io/node-labels"


def declared_labels(raw: object) -> dict[str, str] | None:
    """The annotation's labels, or None when it is absent, unknown in a preview or not a JSON object."""
    if not isinstance(raw, str) or unknown(raw):
        return None
    try:
        labels = json.loads(raw)
    except ValueError:
        return None
    return string_labels(labels) if isinstance(labels, dict) else None


def label(cluster: Cluster, mine: set[str]) -> list[Problem]:
    """Add to each pool the labels of every labelling agent whose pods run on its nodes; name the plan's
    (`mine`) agents that are aimed at a pool but cannot run there."""
    problems = []
    for res in cluster.objects:
        if kind_of(res) != "DaemonSet":
            continue
        labels = declared_labels(get(res.inputs, "metadata", "annotations", ANNOTATION))
        pod = get(res.inputs, "spec", "template", "spec", default=None)
        if not labels or not isinstance(pod, dict):
            continue
        agent = PodGroup(
            workload=describe(res), namespace=str(get(res.inputs, "metadata", "namespace") or "default"), pods=1,
            requests=pod_requests(pod, {}), node_selector=string_labels(pod.get("nodeSelector")),
            node_affinity=get(pod, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                              "nodeSelectorTerms"),
            tolerations=[t for t in pod.get("tolerations") or [] if isinstance(t, dict)], one_per_node=True,
            labels={})
        for pool in cluster.pools:
            if not pool.described or pool.unknown or agent.node_selector.items() - pool.labels.items() or \
                    not affinity_matches(pool.labels, agent.node_affinity) or \
                    not all(tolerates(agent.tolerations, t) for t in pool.taints if t.effect != "PreferNoSchedule"):
                continue  # not aimed at these nodes (or kept off them), or nothing known to judge them by
            # A node shape the plan does not give cannot refuse the agent: no false "not ready".
            why = [w for w in misfits(agent, pool) if not w.startswith(UNKNOWN_SHAPE)]
            if not why:
                pool.labels.update(labels)
            elif res.urn in mine:
                shown = ", ".join(f"{k}={v}" for k, v in sorted(labels.items()))
                problems.append(Problem(cluster.name, agent.workload, f"cannot run on pool {pool.label} "
                                        f"({'; '.join(why)}), so its nodes never get {shown}"))
    return problems

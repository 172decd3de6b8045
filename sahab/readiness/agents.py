"""Labels that node agents give the nodes they run on, as the scheduler will see them once the agents ran.

A DaemonSet annotated `sahab.io/node-labels` (a JSON object) declares the labels its pods write on their own
node when it is healthy: Sahab's node validator writes `sahab.io/validation=passed`, which training Jobs
require. A pool gets those labels when the agent's pods fit its nodes (taints, selector, affinity as judged
on the pool's own labels, requests against allocatable); an agent that cannot run there labels nothing, and
what requires its labels then fits no pool, which is what would happen on the cluster.
"""

from __future__ import annotations

import json

from sahab.readiness.common import get, string_labels, unknown
from sahab.readiness.model import Cluster, PodGroup
from sahab.readiness.scheduling import misfits
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


def label(cluster: Cluster) -> None:
    """Add to each pool the labels of every labelling agent whose pods run on its nodes."""
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
            if pool.described and not pool.unknown and not misfits(agent, pool):
                pool.labels.update(labels)

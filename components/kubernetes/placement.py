"""Where a cluster's own services run (Prometheus, Grafana, the GPU operator's controllers, provisioners).

Pure planning. On clusters with an untainted CPU pool, services are pinned there, keeping GPU nodes for
training. A cluster whose nodes are all GPU (or otherwise tainted) pools, such as a one-server lab, still
needs them somewhere: then they tolerate the pools' taints instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from sahab.components import accelerators
from sahab.components.fleet_config import NodePool
from sahab.components.kubernetes.common import Args
from sahab.components.kubernetes.gpu_config import gpu_toleration, toleration_for


class Placement(Args):
    node_selector: dict[str, str] = {}
    """Node labels a service's pods require. Default: none."""
    tolerations: tuple[dict[str, str], ...] = ()
    """Taints a service's pods tolerate. Default: none."""


def system_placement(pools: Iterable[NodePool]) -> Placement:
    pools = tuple(pools)
    if any(not p.is_gpu and not p.extra_taints for p in pools):
        return Placement(node_selector={accelerators.LABEL_ACCELERATOR: "cpu"})
    tolerations = [gpu_toleration()]
    for pool in pools:
        for taint in pool.extra_taints:
            if toleration_for(taint) not in tolerations:
                tolerations.append(toleration_for(taint))
    return Placement(tolerations=tuple(tolerations))


def pool_agent_placement(pool: NodePool) -> Placement:
    """Where a per-node agent of one pool runs (e.g. its node validator): on that pool's nodes only,
    tolerating the pool's taints."""
    return Placement(node_selector={accelerators.LABEL_POOL: pool.name},
                     tolerations=tuple(toleration_for(t) for t in pool.taints))

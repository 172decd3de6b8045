"""Inter-node all-reduce bandwidth against the fabric a node set pays for.

A node that passes on its own can still sit on a fabric that does not carry its traffic: EFA interfaces missing
from a launch template, no placement group, NCCL falling back to TCP sockets. Before it trains, a Job's group of
nodes all-reduces across the nodes and compares the bus bandwidth (nccl-tests' definition, probes.bus_bandwidth)
with what each node's fabric carries per direction (workloads/node_fabric.py); far below it, the set fails and
does not train.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..node_fabric import FLOOR_ENV, GBIT, Fabric


@dataclass(frozen=True)
class FabricResult:
    fabric: Fabric
    nodes: int
    bus_bytes_per_s: float

    @property
    def passed(self) -> bool:
        return self.bus_bytes_per_s >= self.fabric.floor_bytes_per_s

    def to_json(self) -> dict:
        return {"fabric": self.fabric.name, "nominal_gbps": self.fabric.gbps, "nodes": self.nodes,
                "bus_gbps": round(self.bus_bytes_per_s / GBIT, 3),
                "floor_gbps": round(self.fabric.floor_bytes_per_s / GBIT, 3), "passed": self.passed}


def measure(fabric: Fabric, nodes: int, device: str, nbytes: int | None = None,
            budget_s: float = 5.0) -> FabricResult:
    """All-reduce across the running process group (every rank calls this) and judge the bus bandwidth."""
    import torch.distributed as dist

    from .probes import _allreduce_seconds, bus_bandwidth

    nbytes = nbytes or ((256 << 20) if device.startswith("cuda") else (16 << 20))
    seconds = _allreduce_seconds(nbytes, device, budget_s=budget_s)
    return FabricResult(fabric, nodes, bus_bandwidth(nbytes, seconds, dist.get_world_size()))


def configured() -> Fabric | None:
    """The fabric the Job says this node set has, or None (not a multi-node Job)."""
    text = os.environ.get(FLOOR_ENV)
    return Fabric.from_env(text) if text else None

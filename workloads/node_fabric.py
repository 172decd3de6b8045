"""The fabric a node of an instance type trains over, and its floor: what the training Job tells the image
(`SAHAB_FABRIC`, set by components/kubernetes/training_job.py from the pool) and what the image judges its
node set's all-reduce against (workloads/bench/fabric.py). It lives here, outside the benchmark's internals,
because both sides read it; the image carries it (workloads/Dockerfile copies workloads/).

Fabric per node, in Gb/s per direction (what a ring all-reduce across nodes is bounded by):
- AWS EFA, per instance type: "Supported instance types" in the Amazon EC2 User Guide's EFA chapter and each
  family's network bandwidth ("accelerated computing instances" specifications): p5/p5e/p5en 3,200, p4d/p4de
  400, g6e.12xlarge 100, g6e.24xlarge 200, g6e.48xlarge 400, g5.48xlarge 100, g4dn.metal 100;
- Azure ND InfiniBand: ND H100 v5 / ND H200 v5 eight 400 Gb/s NDR links (3,200), ND A100 v4 eight 200 Gb/s HDR
  links (1,600), from the sizes' pages in Azure's virtual-machine documentation;
- Ethernet otherwise (TCP sockets): 10 Gb/s, the smallest data-centre NIC Sahab plans for.
The floor is a fraction of that: NCCL over EFA or InfiniBand reaches 70-90% of line rate in nccl-tests, TCP
sockets far less; FAR_BELOW (a quarter) fails only a set that did not get its fabric at all.
"""

from __future__ import annotations

from dataclasses import dataclass

FAR_BELOW = 0.25
GBIT = 1e9 / 8  # bytes per second in one Gb/s

_EFA_GBPS = {
    "p5.48xlarge": 3200, "p5e.48xlarge": 3200, "p5en.48xlarge": 3200, "p4d.24xlarge": 400, "p4de.24xlarge": 400,
    "g6e.12xlarge": 100, "g6e.24xlarge": 200, "g6e.48xlarge": 400, "g5.48xlarge": 100, "g4dn.metal": 100,
}
_INFINIBAND_GBPS = {
    "Standard_ND96isr_H100_v5": 3200, "Standard_ND96isr_H200_v5": 3200, "Standard_ND96asr_v4": 1600,
    "Standard_ND96amsr_A100_v4": 1600,
}
ETHERNET_GBPS = 10
FLOOR_ENV = "SAHAB_FABRIC"  # "<fabric>:<Gb/s>", e.g. "efa:100", set by the training Job from the pool


@dataclass(frozen=True)
class Fabric:
    name: str  # efa / infiniband / ethernet
    gbps: float  # per node, per direction

    @property
    def floor_bytes_per_s(self) -> float:
        return self.gbps * GBIT * FAR_BELOW

    def to_env(self) -> str:
        return f"{self.name}:{self.gbps:g}"

    @classmethod
    def from_env(cls, text: str) -> Fabric:
        name, _, gbps = text.partition(":")
        try:
            value = float(gbps)
        except ValueError:
            raise ValueError(f"{FLOOR_ENV} must be <fabric>:<Gb/s>, e.g. efa:100, not {text!r}") from None
        if value <= 0:
            raise ValueError(f"{FLOOR_ENV}: the fabric's Gb/s must be positive, not {gbps}")
        return cls(name, value)


def fabric_of(instance_type: str | None) -> Fabric:
    """The fabric one node of an instance type trains over (Ethernet where neither EFA nor InfiniBand)."""
    if instance_type in _EFA_GBPS:
        return Fabric("efa", _EFA_GBPS[instance_type])
    if instance_type in _INFINIBAND_GBPS:
        return Fabric("infiniband", _INFINIBAND_GBPS[instance_type])
    return Fabric("ethernet", ETHERNET_GBPS)

"""Fleet-level judgement: a node can pass its floors and still be the slow one its peers wait for.

Within each hardware class (with at least MIN_PEERS nodes), a probe value more than `tolerance` below
the class median flags the node as an outlier, the way Imbue's cluster health checks compare hosts with
their peers rather than with a datasheet.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from .validate import NodeResult

MIN_PEERS = 3  # with two nodes there is no majority to call one of them slow
DEFAULT_TOLERANCE = 0.15
# probes where more is better and a slow node slows everyone (the loader only has to outrun the step)
COMPARED = ("gemm", "gemm_fp32", "memory_bandwidth", "allreduce", "train_step")


@dataclass(frozen=True)
class Outlier:
    node: str
    probe: str
    value: float
    median: float

    @property
    def shortfall(self) -> float:
        return 1 - self.value / self.median

    def describe(self) -> str:
        return (
            f"{self.node}: {self.probe} {self.value:.4g} is {self.shortfall:.0%} below "
            f"the class median {self.median:.4g}"
        )


def class_medians(results: list[NodeResult]) -> dict[str, dict[str, float]]:
    """hardware class -> probe -> median over that class's nodes (classes with MIN_PEERS nodes or more)."""
    by_class: dict[str, list[NodeResult]] = {}
    for r in results:
        by_class.setdefault(r.hardware_class, []).append(r)
    medians: dict[str, dict[str, float]] = {}
    for name, nodes in by_class.items():
        if len(nodes) < MIN_PEERS:
            continue
        medians[name] = {}
        for probe in COMPARED:
            values = [n.probes[probe].value for n in nodes if probe in n.probes and n.probes[probe].value]
            if len(values) >= MIN_PEERS:
                medians[name][probe] = statistics.median(values)
    return medians


def outliers(results: list[NodeResult], tolerance: float = DEFAULT_TOLERANCE) -> list[Outlier]:
    medians = class_medians(results)
    found = []
    for r in results:
        for probe, median in medians.get(r.hardware_class, {}).items():
            p = r.probes.get(probe)
            if p and p.value is not None and p.value < median * (1 - tolerance):
                found.append(Outlier(r.node, probe, p.value, median))
    return found


def failing_nodes(results: list[NodeResult], tolerance: float = DEFAULT_TOLERANCE) -> set[str]:
    """Nodes to exclude from training: below a floor, or an outlier among their peers."""
    return {r.node for r in results if not r.passed} | {o.node for o in outliers(results, tolerance)}

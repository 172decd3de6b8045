"""What readiness reasons about: clusters, their node pools, the pods our objects make, and the verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sahab.engine import PlannedResource


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str  # NoSchedule, PreferNoSchedule, NoExecute


@dataclass
class Pool:
    """A group of identical nodes, as the scheduler sees one of them: allocatable resources, labels, taints."""

    name: str
    object: str  # how problems name it, e.g. "node group burst-a10g"
    labels: dict[str, str]
    taints: list[Taint]
    allocatable: dict[str, int]  # cpu (millicores), memory (bytes), pods, devices (counts); empty: shape unknown
    min_nodes: int
    max_nodes: int
    desired_nodes: int  # what it starts with (and keeps, without an autoscaler)
    autoscaled: bool = False  # the cloud itself scales it (AKS enableAutoScaling)
    gpus: int = 0  # physical GPUs per node
    efa: int = 0  # EFA interfaces per node (EKS launch template)
    gpu_memory_gib: float = 0  # per GPU (components.accelerators.InstanceShape)
    shape_unknown: str | None = None  # why the node shape is not known
    gpu_rule: str | None = None  # what the device plugin refuses, e.g. time-slicing's one-GPU limit
    max_gpu_request: int | None = None
    source: str = ""  # URN of the resource that declares it
    hosts: tuple[str, ...] = ()  # on-prem: the servers, named in problems
    described: bool = True  # false: the plan gives neither its nodes nor its labels (nothing to match against)
    unknown: str | None = None  # what a preview does not know yet about its nodes (labels, taints, sizes): unjudged

    @property
    def label(self) -> str:
        return f"{self.name} ({', '.join(self.hosts)})" if self.hosts else self.name


@dataclass
class Cluster:
    key: str
    name: str
    kind: str  # eks, aks, onprem
    anchor: PlannedResource | None = None
    pools: list[Pool] = field(default_factory=list)
    objects: list[PlannedResource] = field(default_factory=list)  # Kubernetes objects through its providers
    addons: dict[str, PlannedResource] = field(default_factory=dict)  # EKS managed add-ons by name
    ours: bool = False  # something of the judged plan (a pool or an object) is on it

    def of_kind(self, kind: str) -> list[PlannedResource]:
        return [r for r in self.objects if r.custom and r.type.rsplit(":", 1)[-1] == kind
                and r.type.startswith("kubernetes:")]

    def charts(self) -> dict[str, PlannedResource]:
        """Helm releases (and charts) on the cluster, by chart name (the last part of a repo/chart or OCI path)."""
        found = {}
        for res in self.objects:
            if res.type in ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart",
                            "kubernetes:helm.sh/v3:Chart"):
                chart = str(res.inputs.get("chart") or "")
                found[chart.rstrip("/").rsplit("/", 1)[-1].split(":", 1)[0]] = res
        return found

    def charts_unknown(self) -> bool:
        """A Helm release whose chart a preview does not know yet: any chart may be missing from `charts()`."""
        from sahab.readiness.common import unknown

        return any(unknown(name) for name in self.charts())


@dataclass
class PodGroup:
    """The pods one workload object asks for, all alike."""

    workload: str  # e.g. "Job ml-training/train-dxb-a100"
    namespace: str
    pods: int
    requests: dict[str, int]
    node_selector: dict[str, str]
    node_affinity: list[list[dict[str, Any]]] | None  # nodeSelectorTerms (ORed) of matchExpressions (ANDed)
    tolerations: list[dict[str, Any]]
    one_per_node: bool  # required pod anti-affinity on the hostname against its own pods
    labels: dict[str, str]
    claims: list[tuple[str, str | None]] = field(default_factory=list)  # (what, storage class or None=default)
    resource: PlannedResource | None = None
    unknown: bool = False  # a preview does not know its pods' scheduling inputs yet (requests, selectors, count)


@dataclass(frozen=True)
class Problem:
    cluster: str
    object: str
    problem: str

    def contract(self) -> dict[str, str]:
        return {"cluster": self.cluster, "object": self.object, "problem": self.problem}


@dataclass(frozen=True)
class Placement:
    workload: str
    cluster: str
    pool: str
    nodes: int

    def contract(self) -> dict[str, Any]:
        return {"workload": self.workload, "cluster": self.cluster, "pool": self.pool, "nodes": self.nodes}


@dataclass
class Readiness:
    problems: list[Problem]
    placements: list[Placement]
    pools: list[Any] = field(default_factory=list)  # sahab.readiness.zones.CloudPool: every cloud pool's zones

    @property
    def ok(self) -> bool:
        return not self.problems

    def contract(self) -> dict[str, Any]:
        return {"ok": self.ok, "problems": [p.contract() for p in self.problems],
                "placements": [p.contract() for p in self.placements],
                "pools": [p.contract() for p in self.pools]}

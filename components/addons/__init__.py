"""The add-ons Sahab installs in clusters: one module per add-on (components/addons/<name>.py), registered here.

Each says which clusters get it and which artifacts (charts, images) it pulls, so the platform that installs it
(components.kubernetes.platform, Fleet) and the registry plan that seeds its artifacts
(components.registry_plan.artifacts_for) read one answer. The layout follows pulumi-eks's `addons/` (one file per
cluster add-on; pulumi/pulumi-eks, nodejs/eks/addons).

The registry's order is the order of the artifacts in `sahab registry list`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sahab.components.artifacts import Artifact
    from sahab.components.fleet import Fleet
    from sahab.components.fleet_config import Cluster, FleetConfig, NodePool
    from sahab.components.kinds import KindSpec


@dataclass(frozen=True)
class Target:
    """One cluster as an add-on decides on it: its kind, its pools, and whether the fleet monitors."""

    kind: KindSpec
    pools: tuple[NodePool, ...]
    monitoring: bool

    @property
    def gpu(self) -> bool:
        return any(p.is_gpu for p in self.pools)


@dataclass(frozen=True)
class Addon:
    name: str
    wanted: Callable[[Target], bool]
    """Whether a cluster this stack creates gets it."""
    artifacts: Callable[[FleetConfig, KindSpec, list[Cluster]], list[Artifact]]
    """What it pulls on the stack's created clusters of one kind (those that get it)."""
    build: Callable[[Fleet, Cluster], Any] | None = None
    """For an add-on Fleet installs beside the platform (not inside it): its builder, which returns None where it
    cannot install it (a cluster whose component this stack did not build)."""


def of_kind(name: str) -> Callable[[Target], bool]:
    """Wanted where the cluster's kind names the add-on among its own (KindSpec.addons)."""
    return lambda target: name in target.kind.addons


def _addons() -> dict[str, Addon]:
    from sahab.components.addons import (
        cilium,
        cluster_autoscaler,
        efa_device_plugin,
        gpu_operator,
        kueue,
        local_path_provisioner,
        monitoring,
    )

    return {a.name: a for a in (kueue.ADDON, monitoring.ADDON, gpu_operator.ADDON, cilium.ADDON,
                                local_path_provisioner.ADDON, efa_device_plugin.ADDON, cluster_autoscaler.ADDON)}


_REGISTRY: dict[str, Addon] = {}


def addons() -> dict[str, Addon]:
    """Every add-on by name (loaded on first use, like components.kinds)."""
    if not _REGISTRY:
        _REGISTRY.update(_addons())
    return _REGISTRY


def wanted(name: str, target: Target) -> bool:
    return addons()[name].wanted(target)

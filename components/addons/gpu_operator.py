"""The NVIDIA GPU operator, on every cluster with a GPU pool (components.kubernetes.gpu_operator). It pulls the
driver, its manager and the container toolkit only where it installs them (components.gpu_stack): one driver
image per node OS (components.node_os)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sahab.components import gpu_stack
from sahab.components.addons import Addon
from sahab.components.artifacts import Artifact, components_of
from sahab.components.node_os import gpu_node_os_tag

if TYPE_CHECKING:
    from sahab.components.fleet_config import Cluster, FleetConfig
    from sahab.components.kinds import KindSpec

# What the GPU operator pulls only where it installs the driver and the toolkit (components.gpu_stack).
OPERATOR_INSTALLED = ("nvidia-driver", "driver-manager", "container-toolkit")


def driver_os_tags(fleet: FleetConfig, kind: str) -> list[str]:
    """The OS suffixes of the driver images the GPU operator pulls on this stack's clusters of a kind: one per
    cluster whose GPU pools leave the driver to the operator (components.gpu_stack, components.node_os)."""
    tags = []
    for cluster in (c for c in fleet.clusters if c.kind == kind and not c.stack_reference):
        if any(p.is_gpu and gpu_stack.owners(kind, p.gpu_driver).operator_installs
               for p in fleet.pools_of(cluster.name)):
            tag = gpu_node_os_tag(kind, cluster.kubernetes_version)
            if tag and tag not in tags:
                tags.append(tag)
    return tags


def artifacts(fleet: FleetConfig, kind: KindSpec, clusters: list[Cluster]) -> list[Artifact]:
    found = components_of("gpu-operator")
    if not driver_os_tags(fleet, kind.name):
        found = [a for a in found if a.name not in OPERATOR_INSTALLED]  # the nodes bring their own
    return found


ADDON = Addon("gpu-operator", wanted=lambda target: target.gpu, artifacts=artifacts)

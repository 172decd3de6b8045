"""Which of the catalog's artifacts a stack uses, per cluster kind, and where each must be in-country.

Pure planning from the validated fleet: the seed list (`sahab registry list`), the ECR repositories Sahab creates
for what ECR cannot cache, and the tests share it.
"""

from __future__ import annotations

from dataclasses import dataclass

from components import gpu_stack
from components.artifacts import CATALOG, Artifact, Images, autoscaler_image, components_of
from components.fleet_config import FleetConfig
from components.image_refs import RULES, split_reference
from components.node_os import gpu_node_os_tag

KINDS = ("eks", "aks", "onprem")
# What the GPU operator pulls only where it installs the driver and the toolkit (components.gpu_stack).
OPERATOR_INSTALLED = ("nvidia-driver", "driver-manager", "container-toolkit")
# Sahab's own images are built from this repository, not pulled from anywhere.
OWN_SOURCE = "workloads/Dockerfile"


@dataclass(frozen=True)
class Entry:
    """One artifact in one cluster kind's registry."""

    kind: str  # image | chart
    cluster_kind: str
    source: str  # upstream reference: image:tag, <Helm repo URL>#<chart>:<version>, oci://...:<version>, or OWN_SOURCE
    target: str  # in-country reference: host/path:tag[@digest], or oci://host/charts/<chart>:<version>
    version: str
    digest: str | None
    how: str  # cache (the registry pulls it through) | seed (push it) | build (build and push it)


def kinds_with_clusters(fleet: FleetConfig, created_only: bool = False) -> list[str]:
    return [k for k in KINDS if any(c.kind == k and not (created_only and c.stack_reference) for c in fleet.clusters)]


def artifacts_for(fleet: FleetConfig, kind: str) -> list[Artifact]:
    """The catalog artifacts the platform installs on this stack's clusters of a kind (none on borrowed ones)."""
    created = [c for c in fleet.clusters if c.kind == kind and not c.stack_reference]
    if not created:
        return []
    names = ["kueue"]
    if fleet.monitoring.enabled:
        names.append("monitoring")
    gpu = [(c.kind, p) for c in created for p in fleet.pools_of(c.name) if p.is_gpu]
    if gpu:
        names.append("gpu-operator")
    if kind == "onprem":
        names += ["cilium", "storage", "onprem"]
    found = [a for component in names for a in components_of(component)]
    if not driver_os_tags(fleet, kind):
        found = [a for a in found if a.name not in OPERATOR_INSTALLED]  # the nodes bring their own
    if kind == "onprem" and not any(c.control_plane_vip for c in created):
        found = [a for a in found if a.name != "kube-vip"]
    if kind == "eks":
        found += components_of("efa-device-plugin")
        found.append(CATALOG["cluster-autoscaler-chart"])
        found += list({c.kubernetes_version: autoscaler_image(c.kubernetes_version) for c in created}.values())
    unique: dict[str, Artifact] = {}
    for artifact in found:
        unique.setdefault(artifact.source, artifact)
    return list(unique.values())


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


def pulled(images: Images, artifact: Artifact, os_tags: list[str]) -> list[str]:
    """The references a cluster pulls for an image artifact, read back through the chart's own join rule from the
    very values Sahab gives it (the driver: one per node OS where the operator installs it)."""
    rule = RULES[artifact.join]
    if artifact.join == "nvidia-driver":
        return [rule.pulls(images.values(artifact, f"{artifact.version}-{os}"), os) for os in os_tags]
    return [rule.pulls(images.values(artifact))]


def how(artifact: Artifact, kind: str, credentials: dict[str, str], airgapped: bool = False) -> str:
    """cache when the kind's registry pulls it through, else seed. The on-prem mirror is taken to proxy its
    upstreams (a Harbor proxy cache, distribution's proxy mode) unless a site is airgapped: then it is seeded."""
    upstream = artifact.registry
    if upstream is None:
        return "seed"  # charts
    if kind == "onprem":
        return "seed" if airgapped else "cache"
    cacheable = upstream.ecr_url is not None if kind == "eks" else upstream.acr_cache
    if cacheable and (not upstream.needs_credentials or upstream.host in credentials):
        return "cache"
    return "seed"


def seed_list(fleet: FleetConfig, digests: dict[str, str] | None = None) -> list[Entry]:
    """Every artifact of the stack with its upstream source and in-country target, per cluster kind."""
    digests = digests or {}
    entries: list[Entry] = []
    # Training Jobs run on the clusters this stack installs a platform on, and on a burst stack's workers.
    workload_kinds = kinds_with_clusters(fleet, created_only=True) if fleet.workload.enabled else []
    if fleet.burst is not None and fleet.workload.enabled:
        workload_kinds = sorted({fleet.cluster(w).kind for w in fleet.burst.workers} | set(workload_kinds))
    for kind in KINDS:
        registry = getattr(fleet.registries, kind)
        if registry is None:
            continue
        images = Images(host=registry.host.lower(), digests=digests)
        credentials = getattr(registry, "upstream_credentials", {})
        airgapped = any(s.airgapped for s in fleet.sites)
        os_tags = driver_os_tags(fleet, kind)
        for artifact in artifacts_for(fleet, kind):
            way = how(artifact, kind, credentials, airgapped)
            if artifact.kind == "chart":  # charts as `helm pull`/`helm push` name them: <chart ref>:<version>
                chart, version, _ = images.chart(artifact.component)
                entries.append(Entry("chart", kind, f"{artifact.source}:{version}", f"{chart}:{version}", version,
                                     images.chart_digest(artifact.component), way))
                continue
            for target in pulled(images, artifact, os_tags):
                ref = split_reference(target)
                entries.append(Entry("image", kind, f"{artifact.upstream}:{ref.tag}", target, ref.tag, ref.digest,
                                     way))
        if kind in workload_kinds:
            target = images.own_image(fleet.workload.image)
            name = target.partition("@")[0]
            entries.append(Entry("image", kind, OWN_SOURCE, target, name.rpartition(":")[2],
                                 target.partition("@")[2] or None, "build"))
    return entries


def own_repositories(fleet: FleetConfig) -> list[str]:
    """Repository paths (no host, no tag) of Sahab's own images in the registries."""
    paths = []
    for entry in seed_list(fleet):
        if entry.how == "build":
            name = entry.target.partition("@")[0]
            paths.append(name.split("/", 1)[1].rpartition(":")[0])
    return sorted(set(paths))

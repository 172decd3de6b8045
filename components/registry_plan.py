"""Which of the catalog's artifacts a stack uses, per cluster kind, and where each must be in-country.

Pure planning from the validated fleet: the seed list (`sahab registry list`), the ECR repositories Sahab creates
for what ECR cannot cache, and the tests share it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sahab.components.addons import Target, addons
from sahab.components.addons.gpu_operator import driver_os_tags
from sahab.components.artifacts import Artifact, Images
from sahab.components.fleet_config import FleetConfig
from sahab.components.image_refs import RULES, split_reference
from sahab.components.kinds import kinds

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
    return [k for k in kinds() if any(c.kind == k and not (created_only and c.stack_reference) for c in fleet.clusters)]


def artifacts_for(fleet: FleetConfig, kind: str) -> list[Artifact]:
    """The catalog artifacts this stack's clusters of a kind pull (none on borrowed ones): those of every add-on
    one of them gets (components.addons), then the kind's nodes' own (KindSpec.node_artifacts)."""
    spec = kinds()[kind]
    created = [c for c in fleet.clusters if c.kind == kind and not c.stack_reference]
    if not created:
        return []
    targets = [Target(spec, fleet.pools_of(c.name), fleet.monitoring.enabled) for c in created]
    found = [a for addon in addons().values() if any(addon.wanted(t) for t in targets)
             for a in addon.artifacts(fleet, spec, created)]
    found += spec.node_artifacts(fleet, created)
    unique: dict[str, Artifact] = {}
    for artifact in found:
        unique.setdefault(artifact.source, artifact)
    return list(unique.values())


def pulled(images: Images, artifact: Artifact, os_tags: list[str]) -> list[str]:
    """The references a cluster pulls for an image artifact, read back through the chart's own join rule from the
    very values Sahab gives it (the driver: one per node OS where the operator installs it)."""
    rule = RULES[artifact.join]
    if artifact.join == "nvidia-driver":
        return [rule.pulls(images.values(artifact, f"{artifact.version}-{os}"), os) for os in os_tags]
    return [rule.pulls(images.values(artifact))]


def how(artifact: Artifact, kind: str, credentials: dict[str, str], airgapped: bool = False) -> str:
    """cache when the kind's registry pulls it through (KindSpec.registry.pulls_through), else seed."""
    upstream = artifact.registry
    if upstream is None:
        return "seed"  # charts
    return "cache" if kinds()[kind].registry.pulls_through(upstream, credentials, airgapped) else "seed"


def seed_list(fleet: FleetConfig, digests: dict[str, str] | None = None) -> list[Entry]:
    """Every artifact of the stack with its upstream source and in-country target, per cluster kind."""
    digests = digests or {}
    entries: list[Entry] = []
    # Training Jobs run on the clusters this stack installs a platform on, and on a burst stack's workers.
    workload_kinds = kinds_with_clusters(fleet, created_only=True) if fleet.workload.enabled else []
    if fleet.burst is not None and fleet.workload.enabled:
        workload_kinds = sorted({fleet.cluster(w).kind for w in fleet.burst.workers} | set(workload_kinds))
    for kind, registry in fleet.registries:  # in the schema's order
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

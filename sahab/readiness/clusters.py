"""Find the clusters in a plan: each kind's adapter gives clusters and pools; Kubernetes objects join the
cluster of their provider, found through what the provider's kubeconfig (or the provider itself) depends on."""

from __future__ import annotations

from importlib import import_module

from sahab.components.kinds import kinds
from sahab.engine import PlannedResource
from sahab.readiness.readiness_types import Cluster

K8S_PROVIDER = "pulumi:providers:kubernetes"


def discover(resources: list[PlannedResource]) -> list[Cluster]:
    clusters: dict[str, Cluster] = {}
    anchors: dict[str, str] = {}
    # Each kind's readiness adapter (KindSpec.readiness: a module of this package), in the registry's order.
    for adapter in (import_module(f"sahab.readiness.{spec.readiness}") for spec in kinds().values()):
        found, anchored = adapter.clusters(resources)
        clusters.update(found)
        anchors.update(anchored)
    by_urn = {r.urn: r for r in resources}
    provider_cluster = {}
    for provider in (r for r in resources if r.type == K8S_PROVIDER):
        key = _cluster_of(provider, by_urn, anchors)
        if key is not None:
            provider_cluster[provider.urn] = key
    for res in resources:
        if res.type.startswith("kubernetes:") and res.provider in provider_cluster:
            clusters[provider_cluster[res.provider]].objects.append(res)
    return list(clusters.values())


def _cluster_of(provider: PlannedResource, by_urn: dict[str, PlannedResource], anchors: dict[str, str]) -> str | None:
    """The cluster whose resource the provider's kubeconfig is made from (or, failing that, that the provider
    depends on), looking through parents: a component's child stands for its component."""
    candidates = [*provider.property_dependencies.get("kubeconfig", []), *provider.dependencies]
    for urn in candidates:
        res = by_urn.get(urn)
        while res is not None:
            if res.urn in anchors:
                return anchors[res.urn]
            res = by_urn.get(res.parent or "")
    return None

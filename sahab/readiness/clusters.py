"""Find the clusters in a plan: each kind's adapter gives clusters and pools; Kubernetes objects join the
cluster of their provider, found through what the provider's kubeconfig (or the provider itself) depends on.

A kind's readiness adapter (KindSpec.readiness: a module of this package) is where every check asks what differs
between kinds; each adapter offers:

- `clusters(resources)`: the kind's clusters and pools in a plan, and the URN of each cluster's anchor resource;
- `missing_cni(cluster)`, `unenforced_policies(cluster)`: why the kind's own networking gives the cluster no CNI,
  or no NetworkPolicy enforcement (None: it does), when no cilium/calico Helm release runs;
- `reaches_max(cluster)`: whether every pool of the cluster may have its ceiling of nodes whatever its own
  autoscaling setting; `never_scales(cluster, pool)`: why a pool never gets a node, or None;
- `STORAGE_CLASSES`, `DEFAULT_STORAGE_CLASSES`: the classes every cluster of the kind has (name -> provisioner);
  `CSI_PROVISIONERS` and `csi_unbacked(cluster, provisioner)`: the provisioners of the kind's cloud's CSI drivers
  and why one provisions nothing on a cluster (any kind's), or None;
- `api_target(graph, cluster)`: where the cluster's API server answers and who may reach it, or None;
- `cloud_pool(cluster, pool, res, index)`: a cloud pool's region, instance types and zones, or None.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from sahab.components.kinds import get, kinds
from sahab.engine import PlannedResource
from sahab.readiness.readiness_types import Cluster

K8S_PROVIDER = "pulumi:providers:kubernetes"


def discover(resources: list[PlannedResource]) -> list[Cluster]:
    clusters: dict[str, Cluster] = {}
    anchors: dict[str, str] = {}
    for kind in kinds():  # in the registry's order
        found, anchored = adapter(kind).clusters(resources)
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


def adapter(kind: str) -> ModuleType:
    """The readiness adapter of a cluster kind (KindSpec.readiness: a module of this package)."""
    return import_module(f"sahab.readiness.{get(kind).readiness}")


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

"""Kubernetes burst: only clusters in the residency regions may ever be MultiKueue workers.

A MultiKueue manager hands queued Jobs, with their images, data paths and checkpoint locations, to every
cluster its MultiKueueCluster objects name. Sahab labels each with the worker's region (`sahab.io/region`,
from the fleet config); a worker whose region is outside the allowed list, or that does not say where it is,
would let training and its data leave the country."""

from __future__ import annotations

from ..core import (
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    iso27001,
    pdpl,
    rule,
)
from ..residency import CLUSTER_LABELS, describe_place, effective_place, place_allowed

MULTIKUEUE_CLUSTER_TYPES = tuple(CLUSTER_LABELS)


@rule(id="SAHAB-K8S-010", name="kubernetes-kueue-multikueuecluster-uae-region",
      title="MultiKueue workers are clusters in the allowed regions",
      description="Every MultiKueueCluster (a worker a MultiKueue manager dispatches Jobs to) carries the label "
                  "`sahab.io/region` with one of the allowed regions (UAE by default); a worker that does not say "
                  "where it runs is refused.",
      remediation="Only list eks/aks clusters in the allowed regions as `burst.workers`; Sahab sets the label "
                  "from the cluster's region.",
      severity=Severity.CRITICAL, frameworks=(pdpl("Art. 22 (cross-border transfer)"), iso27001("A.5.34")),
      # A custom resource's type token comes from its apiVersion and kind, not from the SDK: look at every
      # Kubernetes resource and pick the MultiKueueClusters.
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, packages=("kubernetes",))
def k8s_multikueue_worker_region(view: ResourceView, ctx: Context):
    if view.type not in MULTIKUEUE_CLUSTER_TYPES:
        return
    place = effective_place(view, ctx)
    if not place_allowed(place, ctx):
        yield Finding(f"the worker cluster's place is {describe_place(place)}; allowed: "
                      f"{', '.join(ctx.allowed_regions)}")

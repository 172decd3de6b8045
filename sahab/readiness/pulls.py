"""What each Helm release would make its cluster pull, read through the chart's fact sheet: every image the chart
version runs with the release's values, joined as its templates join it (components.image_refs). A reference
that is not a valid OCI reference, or that the stack's seed list (`sahab registry list`) does not hold, would leave
its pods in ImagePullBackOff (and an `atomic` release rolled back).

Charts without a sheet, values a preview does not know yet, and stacks whose seed list is not known (a program
that is not a Sahab fleet) give no verdict.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sahab.components.chart_facts import MissingFactSheet, lookup, sheet
from sahab.components.image_refs import RULES, Ref, valid_reference
from sahab.components.node_os import gpu_node_os_tag
from sahab.engine import PlannedResource
from sahab.readiness.common import unknown
from sahab.readiness.readiness_types import Cluster, Problem
from sahab.readiness.workloads import describe

RELEASE_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Chart")


def _merge(base: Any, extra: Any) -> Any:
    if isinstance(base, dict) and isinstance(extra, dict):
        return {**base, **{k: _merge(base.get(k), v) for k, v in extra.items()}}
    return base if extra is None else extra


def chart_of(release: PlannedResource) -> tuple[str, str] | None:
    """(chart name, version) of a release: `oci://host/charts/<chart>`, `<repo>/<chart>` or `<chart>`."""
    chart, version = release.inputs.get("chart"), release.inputs.get("version")
    if not isinstance(chart, str) or not isinstance(version, str) or unknown([chart, version]):
        return None
    return chart.rstrip("/").rsplit("/", 1)[-1].split(":", 1)[0], version


def kubernetes_version(cluster: Cluster) -> str:
    """The cluster's minor version as its anchor resource states it (EKS `version`, AKS `kubernetesVersion`)."""
    inputs = cluster.anchor.inputs if cluster.anchor is not None else {}
    raw = inputs.get("version") or inputs.get("kubernetesVersion")
    if isinstance(raw, str) and raw.count(".") >= 1 and not unknown(raw):
        return ".".join(raw.split(".")[:2])
    return "1.34"


def release_pulls(release: PlannedResource, cluster: Cluster) -> Iterator[tuple[str, str]] | None:
    """(image, reference) for every image the release's chart runs with its values; None when the chart version
    has no sheet or the values are not known yet."""
    found = chart_of(release)
    values = release.inputs.get("values")
    if found is None or not isinstance(values, dict):
        return None
    try:
        facts = sheet(*found)
    except MissingFactSheet:
        return None
    if unknown(values):
        values = {k: v for k, v in values.items() if not unknown(v)}  # judge what is known
    return _pulls(facts, values, cluster)


def _pulls(facts, values: Mapping[str, Any], cluster: Cluster) -> Iterator[tuple[str, str]]:
    for image in facts.images:
        if not image.runs(values):
            continue
        rule = RULES[image.join]
        default = rule.render(Ref(image.repository, image.tag))
        for path in image.values or ("",):
            given = lookup(values, path) if path else None
            if unknown(given):
                continue
            fragment = _merge(default, given)
            if image.join == "nvidia-driver":
                os_tag = gpu_node_os_tag(cluster.kind, kubernetes_version(cluster))
                if os_tag is None:
                    continue  # the nodes bring their own driver
                yield image.image, rule.pulls(fragment, os_tag)
            else:
                yield image.image, rule.pulls(fragment)


def check(cluster: Cluster, mine: set[str], seeded: Mapping[str, set[str]] | None) -> list[Problem]:
    problems = []
    for release in (r for r in cluster.objects if r.type in RELEASE_TYPES and r.urn in mine):
        pulls = release_pulls(release, cluster)
        if pulls is None:
            continue
        held = seeded.get(cluster.kind) if seeded is not None else None
        for image, reference in pulls:
            if not valid_reference(reference):
                problems.append(Problem(cluster.name, describe(release), f"would pull {image} as {reference!r}, "
                                        "which is not a valid image reference: its pods never start"))
            elif held is not None and reference not in held:
                problems.append(Problem(cluster.name, describe(release), f"would pull {reference} ({image}), which "
                                        f"the stack's seed list lacks (sahab registry list): its pods stay in "
                                        "ImagePullBackOff"))
    return problems

"""Acceptance: every image and chart a stack's plan names comes from the fleet's in-country registries.

Each stack is planned with the offline engine; every Pod spec and workload template (containers, init and
ephemeral containers), every Helm release's values and every chart reference is walked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from sahab.components.fleet_config import parse_fleet
from sahab.policies.core import MISSING, UNKNOWN, ResourceView
from sahab.policies.rules.kubernetes_images import HELM_RELEASE, images_of, parse_reference

from tests.plans import stack_plan

STACKS = Path(__file__).resolve().parents[3] / "stacks"


def fleet_of(stack: str):
    doc = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text())
    return parse_fleet(doc["config"]["sahab:fleet"])


@pytest.fixture(scope="module", params=["dev", "prod", "burst", "smb"])
def planned(request):
    return request.param, fleet_of(request.param), stack_plan(request.param)


def cluster_of(resource, fleet) -> str | None:
    """The cluster a Kubernetes resource goes to, from its provider `<fleet>-<cluster>-k8s`."""
    provider = (resource.provider or "").rsplit("::", 1)[-1]
    for cluster in fleet.clusters:
        if provider == f"{fleet.name}-{cluster.name}-k8s":
            return cluster.name
    return None


def test_every_image_of_every_workload_and_release_is_in_its_clusters_registry(planned):
    stack, fleet, result = planned
    hosts = set(fleet.registries.hosts)
    seen = 0
    for resource in result.resources:
        if not resource.type.startswith("kubernetes:"):  # every Kubernetes object, CRDs included
            continue
        cluster = fleet.cluster(cluster_of(resource, fleet))
        for where, image in images_of(ResourceView(resource.type, resource.name, resource.urn, resource.inputs)):
            assert image is not UNKNOWN and image is not MISSING, (resource.name, where)
            registry = parse_reference(image).registry
            seen += 1
            if stack == "burst" and resource.type != HELM_RELEASE:
                # Jobs queued on the on-prem manager run on a cloud worker: its kind's registry.
                assert registry in hosts, (resource.name, where, image)
            else:
                assert registry == fleet.registries.host_of(cluster.kind), (resource.name, where, image)
    assert seen


def test_every_chart_is_an_oci_artifact_of_the_clusters_registry_with_a_pinned_version(planned):
    stack, fleet, result = planned
    releases = [r for r in result.resources if r.type == HELM_RELEASE]
    assert releases or stack == "burst"
    for release in releases:
        kind = fleet.cluster(cluster_of(release, fleet)).kind
        chart = release.inputs["chart"]
        assert chart.startswith(f"oci://{fleet.registries.host_of(kind)}/charts/"), (release.name, chart)
        assert release.inputs["version"] and not release.inputs.get("repositoryOpts"), release.name


def test_no_resource_names_a_public_registry_anywhere_in_its_inputs(planned):
    """Beyond the fields the policy reads: no input string of any Kubernetes object points at a public registry."""
    _, _, result = planned
    public = ("docker.io/", "quay.io/", "ghcr.io/", "registry.k8s.io/", "nvcr.io/", "helm.ngc.nvidia.com",
              "github.io", "helm.cilium.io")

    def strings(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from strings(v)
        elif isinstance(value, list):
            for v in value:
                yield from strings(v)

    for resource in result.resources:
        if resource.type.startswith("kubernetes:"):
            for text in strings(resource.inputs):
                assert not any(p in text for p in public), (resource.name, text[:200])

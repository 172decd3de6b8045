"""Every image a chart would pull is set in its values, from the registry, and is an artifact of the catalog: the
policy pack sees only values, so an image left to a chart's default would pass unseen."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sahab.components.artifacts import CATALOG, Images, autoscaler_image, components_of
from sahab.components.aws.cluster_autoscaler import ClusterAutoscalerArgs, chart_values
from sahab.components.fleet_config import NodePool
from sahab.components.kubernetes import cilium, efa_device_plugin, gpu_operator, kueue, monitoring
from sahab.components.registry_plan import pulled
from sahab.policies.core import ResourceView
from sahab.policies.rules.kubernetes_images import HELM_RELEASE, images_of

HOST = "registry.site.example.ae:5000"
DIGEST = "sha256:" + "cd" * 32
IMAGES = Images(host=HOST)


def repositories(values: Any) -> Iterator[str]:
    """Every image repository a values tree names, in each spelling the charts use."""
    if isinstance(values, dict):
        repository = values.get("repository")
        if isinstance(repository, str):
            if isinstance(values.get("image"), str):  # gpu-operator: repository/image
                yield f"{repository}/{values['image']}"
            elif isinstance(values.get("registry"), str):  # kube-prometheus-stack: registry + repository
                yield f"{values['registry']}/{repository}"
            else:
                yield repository
        for value in values.values():
            yield from repositories(value)
    elif isinstance(values, list):
        for value in values:
            yield from repositories(value)


def expected(component: str) -> set[str]:
    return {IMAGES.repository(a) for a in components_of(component) if a.kind == "image"}


def gpu_pool() -> NodePool:
    return NodePool(name="gpu", cluster="c", accelerator="h100", gpus_per_node=8)


VALUES = {
    "monitoring": lambda images: monitoring.helm_values(
        monitoring.ClusterMonitoringArgs(storage_class="sc", images=images), "sc"),
    "gpu-operator": lambda images: gpu_operator.helm_values(
        # AKS: where the operator installs the driver (components.gpu_stack), so every image of it is pulled
        gpu_operator.GpuOperatorArgs(cluster_kind="aks", pools=(gpu_pool(),), images=images)),
    "cilium": lambda images: cilium.helm_values(cilium.CiliumArgs(api_server="10.0.0.5:6443", images=images)),
    "kueue": lambda images: kueue.chart_values(kueue.KueueArgs(images=images)),
    "efa-device-plugin": lambda images: efa_device_plugin.helm_values(
        efa_device_plugin.EfaDevicePluginArgs(images=images)),
}


@pytest.mark.parametrize("component", sorted(VALUES))
def test_the_values_name_every_image_of_the_component_in_the_registry(component):
    found = set(repositories(VALUES[component](IMAGES)))
    assert all(r.startswith(f"{HOST}/") for r in found), found
    want = expected(component)
    if component == "cilium":  # the chart appends `-generic` to the operator's repository
        want = {r.removesuffix("-generic") for r in want}
    assert found == want


@pytest.mark.parametrize("component", sorted(VALUES))
def test_a_recorded_digest_reaches_the_reference_the_policy_reads(component):
    # Digests are recorded by the reference each chart pulls (the GPU operator's driver: with its node OS tag).
    digests = {ref.partition("@")[0]: DIGEST for a in components_of(component) if a.kind == "image"
               for ref in pulled(IMAGES, a, ["ubuntu22.04"])}
    values = VALUES[component](Images(host=HOST, digests=digests))
    seen = list(images_of(ResourceView(HELM_RELEASE, component, f"urn:{component}", {"values": values})))
    assert seen
    assert all(isinstance(image, str) and image.startswith(HOST) and image.endswith(DIGEST) for _, image in seen), seen


def test_the_autoscaler_image_follows_the_cluster_version_in_the_registry():
    args = ClusterAutoscalerArgs(cluster_name="c", region="me-central-1", account_id="111122223333",
                                 oidc_provider_arn="arn", oidc_issuer="https://oidc", kubernetes_version="1.34",
                                 images=IMAGES)
    values = chart_values(args, "c", "arn:role")
    assert values["image"] == {"repository": f"{HOST}/k8s/autoscaling/cluster-autoscaler", "tag": "v1.34.0"}
    assert autoscaler_image("1.34").source == "registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.0"


def test_every_catalog_image_is_used_by_some_component():
    used = {a.name for c in ("monitoring", "gpu-operator", "cilium", "kueue", "storage", "onprem", "cluster-autoscaler",
                             "efa-device-plugin") for a in components_of(c)}
    assert used == set(CATALOG)

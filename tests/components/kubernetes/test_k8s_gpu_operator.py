"""GpuOperator under mocks: a pinned upstream chart whose values put NVIDIA's agents on GPU nodes only."""

import pytest
import yaml
from pydantic import ValidationError
from sahab.components import accelerators
from sahab.components.fleet_config import NodePool, Taint
from sahab.components.kubernetes.gpu_operator import (
    CHART_REPOSITORY,
    DEVICE_PLUGIN_CONFIG,
    GpuOperator,
    GpuOperatorArgs,
)

from tests.components.kubernetes.harness import one, with_provider

RELEASE = "kubernetes:helm.sh/v3:Release"
CM = "kubernetes:core/v1:ConfigMap"


def pool(name="gpu-pool", **kw) -> NodePool:
    return NodePool(name=name, cluster="c", accelerator=kw.pop("accelerator", "h100"), **kw)


def build(kind="eks", pools=None):
    args = GpuOperatorArgs(cluster_kind=kind, pools=tuple(pools or [pool()]))
    return with_provider(lambda o: GpuOperator("gpu", args, opts=o))


def test_release_is_the_pinned_upstream_chart():
    release = one(build(), RELEASE).inputs
    assert release["chart"] == "gpu-operator"
    assert release["version"] == "v26.7.0"
    assert release["repositoryOpts"]["repo"] == CHART_REPOSITORY == "https://helm.ngc.nvidia.com/nvidia"
    assert release["namespace"] == "gpu-operator"


def test_agents_tolerate_the_gpu_taint_and_the_pools_extra_taints():
    values = one(build(pools=[pool(extra_taints=(Taint(key="dedicated", value="ml"),))]), RELEASE).inputs["values"]
    gpu = {"key": accelerators.GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
    dedicated = {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"}
    for tolerations in (values["daemonsets"]["tolerations"],
                        values["node-feature-discovery"]["worker"]["tolerations"]):
        assert gpu in tolerations and dedicated in tolerations


def test_feature_discovery_and_per_pool_device_plugin_configs_are_on():
    resources = build(pools=[pool(mig_strategy="single"), pool("shared", time_slicing_replicas=4)])
    values = one(resources, RELEASE).inputs["values"]
    assert values["nfd"]["enabled"] is True
    assert values["gfd"]["enabled"] is True
    assert values["devicePlugin"]["config"] == {"name": DEVICE_PLUGIN_CONFIG, "default": "mig-none"}
    assert values["mig"]["strategy"] == "mixed"
    data = one(resources, CM, "gpu-device-plugin-config").inputs["data"]
    assert yaml.safe_load(data["mig-single"])["flags"]["migStrategy"] == "single"
    shared = yaml.safe_load(data["mig-none-shared-4"])["sharing"]["timeSlicing"]["resources"][0]
    assert shared == {"name": "nvidia.com/gpu", "replicas": 4}


def test_dcgm_exporter_publishes_sahabs_metric_set():
    resources = build()
    values = one(resources, RELEASE).inputs["values"]
    assert values["dcgmExporter"]["enabled"] is True
    assert values["dcgmExporter"]["config"]["name"] == one(resources, CM, "gpu-dcgm-metrics").inputs["metadata"]["name"]
    assert "DCGM_FI_DEV_XID_ERRORS" in one(resources, CM, "gpu-dcgm-metrics").inputs["data"]["dcgm-metrics.csv"]


@pytest.mark.parametrize(("kind", "driver", "installs"), [
    ("aks", "operator", True), ("aks", None, True), ("aks", "preinstalled", False),
    ("eks", "preinstalled", False), ("eks", None, False),  # the AL2023 NVIDIA AMI ships both
    ("onprem", None, False),  # Ansible installs drivers and the toolkit on-prem
])
def test_who_installs_drivers(kind, driver, installs):
    values = one(build(kind, [pool(gpu_driver=driver)]), RELEASE).inputs["values"]
    assert values["driver"]["enabled"] is installs
    assert values["toolkit"]["enabled"] is installs


@pytest.mark.parametrize("kind", ["eks", "onprem"])
def test_an_operator_that_would_install_the_driver_a_second_time_is_refused(kind):
    with pytest.raises(ValidationError, match="a second time"):
        GpuOperatorArgs(cluster_kind=kind, pools=(pool(gpu_driver="operator"),))


def test_namespace_is_privileged_for_the_agents_only():
    ns = one(build(), "kubernetes:core/v1:Namespace").inputs["metadata"]
    assert ns["name"] == "gpu-operator"
    assert ns["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"


def test_needs_gpu_pools():
    with pytest.raises(ValidationError, match="at least one GPU pool"):
        GpuOperatorArgs(cluster_kind="eks", pools=())
    with pytest.raises(ValidationError, match="not GPU pools: cpu-pool"):
        GpuOperatorArgs(cluster_kind="eks", pools=(NodePool(name="cpu-pool", cluster="c"),))


def test_pools_of_one_cluster_must_agree_on_who_installs_drivers():
    with pytest.raises(ValidationError, match="must agree on gpu_driver"):
        GpuOperatorArgs(cluster_kind="aks", pools=(pool("pool-a"), pool("pool-b", gpu_driver="preinstalled")))


def test_controllers_follow_the_placement_while_agents_follow_the_gpus():
    from sahab.components.kubernetes.placement import Placement

    args = GpuOperatorArgs(cluster_kind="aks", pools=(pool(),),
                           placement=Placement(node_selector={"sahab.io/accelerator": "cpu"}))
    values = one(with_provider(lambda o: GpuOperator("gpu", args, opts=o)), RELEASE).inputs["values"]
    assert values["operator"]["nodeSelector"] == {"kubernetes.io/os": "linux", "sahab.io/accelerator": "cpu"}
    nfd = values["node-feature-discovery"]
    assert nfd["master"]["nodeSelector"] == nfd["gc"]["nodeSelector"] == {"sahab.io/accelerator": "cpu"}
    # The per-node agents are not pinned to CPU nodes: they select GPU nodes through the operator's labels.
    assert "nodeSelector" not in values["daemonsets"] and "nodeSelector" not in nfd["worker"]

"""Node pool rendering for EKS and AKS, without Pulumi."""

import pytest
from sahab.components import pool_plan
from sahab.components.fleet_config import NodePool, Taint

from sahab.errors import ConfigError


def pool(**kw) -> NodePool:
    return NodePool(**{"name": "p1", "cluster": "c", **kw})


def test_gpu_pool_is_tainted_and_labelled_in_both_dialects():
    gpu = pool(accelerator="l40s")
    assert pool_plan.eks_taints(gpu) == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert pool_plan.aks_taints(gpu) == ["nvidia.com/gpu=present:NoSchedule"]
    assert gpu.node_labels["sahab.io/accelerator"] == "l40s"
    assert pool_plan.eks_ami_type(gpu) == "AL2023_x86_64_NVIDIA"


def test_cpu_pool_is_untainted_on_the_standard_image():
    cpu = pool()
    assert pool_plan.eks_taints(cpu) == [] and pool_plan.aks_taints(cpu) == []
    assert pool_plan.eks_ami_type(cpu) == "AL2023_x86_64_STANDARD"
    assert pool_plan.aks_gpu_driver(cpu) is None


def test_extra_taints_keep_their_effect_and_valueless_taints_render_without_equals():
    p = pool(extra_taints=(Taint(key="team", value="research", effect="NoExecute"), Taint(key="dedicated")))
    assert pool_plan.eks_taints(p)[0]["effect"] == "NO_EXECUTE"
    assert pool_plan.aks_taints(p) == ["team=research:NoExecute", "dedicated:NoSchedule"]


def test_gpu_driver_is_left_to_the_operator_unless_the_image_brings_it():
    assert pool_plan.aks_gpu_driver(pool(accelerator="h100")) == "None"
    assert pool_plan.aks_gpu_driver(pool(accelerator="h100", gpu_driver="preinstalled")) == "Install"


def test_scaling_from_zero_is_autoscaled_and_fixed_pools_are_not():
    burst = pool_plan.scaling(pool(min_size=0, max_size=8))
    assert (burst.min_size, burst.desired_size, burst.max_size, burst.autoscaled) == (0, 0, 8, True)
    assert not pool_plan.scaling(pool(min_size=2, max_size=2)).autoscaled


def test_a_pool_that_can_never_have_a_node_is_refused():
    with pytest.raises(ConfigError, match="max_size"):
        pool_plan.scaling(pool(min_size=0, max_size=0))


def test_accelerator_the_region_does_not_sell_is_refused_naming_the_type():
    with pytest.raises(ConfigError, match=r"'h100' is not offered in me-central-1 as p5.48xlarge"):
        pool_plan.require_offered(pool(accelerator="h100"), "aws", "me-central-1")
    # The default is the first candidate the region sells: p5en, not p5e, in me-central-1.
    assert pool_plan.require_offered(pool(accelerator="h200"), "aws", "me-central-1") == "p5en.48xlarge"


def test_instance_type_must_carry_the_pools_accelerator():
    with pytest.raises(ConfigError, match="does not carry 'l40s'"):
        pool_plan.require_offered(pool(accelerator="l40s", instance_type="g5.2xlarge"), "aws", "me-central-1")
    assert pool_plan.require_offered(pool(accelerator="t4"), "azure", "uaenorth") == "Standard_NC4as_T4_v3"


def test_aks_pool_names_are_short_alphanumeric_and_unique():
    assert pool_plan.aks_pool_names(["aks-h100", "aks-cpu"]) == {"aks-h100": "aksh100", "aks-cpu": "akscpu"}
    with pytest.raises(ConfigError, match="clashes with a-b"):
        pool_plan.aks_pool_names(["a-b", "ab"])
    with pytest.raises(ConfigError, match="system pool"):
        pool_plan.aks_pool_names(["system"])
    with pytest.raises(ConfigError, match="AKS pool name"):
        pool_plan.aks_pool_name("9-lives")


def test_aks_spot_pools_state_the_taint_aks_puts_on_spot_nodes():
    assert pool_plan.aks_taints(pool(accelerator="t4", spot=True)) == [
        "nvidia.com/gpu=present:NoSchedule", "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"]
    assert pool_plan.eks_taints(pool(spot=True)) == []

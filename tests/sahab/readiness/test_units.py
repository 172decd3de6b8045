"""The pure parts: quantities, allocatable figures per platform, node shapes, toleration and affinity rules."""

import pytest
from sahab.components import accelerators

from sahab.readiness import allocatable
from sahab.readiness.quantities import GiB, MiB, amount
from sahab.readiness.readiness_types import Taint
from sahab.readiness.scheduling import affinity_matches, tolerates


@pytest.mark.parametrize(("resource", "raw", "counted"), [
    ("cpu", "500m", 500), ("cpu", "4", 4000), ("cpu", 2, 2000), ("cpu", "1.5", 1500),
    ("memory", "16Gi", 16 * GiB), ("memory", "512Mi", 512 * MiB), ("memory", "1G", 10**9),
    ("nvidia.com/gpu", "8", 8), ("memory", "[secret]", None), ("cpu", True, None),
])
def test_quantities_count_as_the_scheduler_counts(resource, raw, counted):
    assert amount(resource, raw) == counted


def test_eks_allocatable_follows_the_node_bootstrap_formula():
    # m6i.xlarge: 4 vCPUs, 16 GiB, 58 pods: 80m CPU and 11 x 58 + 255 MiB kube-reserved, 100 MiB eviction.
    shape = accelerators.instance_shape("aws", "m6i.xlarge")
    got = allocatable.eks(shape.vcpus, shape.memory_gib, accelerators.eks_max_pods("m6i.xlarge", shape.vcpus))
    assert got == {"cpu": 3920, "memory": 16 * GiB - (11 * 58 + 255) * MiB - 100 * MiB, "pods": 58}


def test_eks_max_pods_are_capped_by_managed_node_groups():
    assert accelerators.eks_max_pods("m6i.4xlarge", 16) == 110  # 234 by ENIs, capped below 30 vCPUs
    assert accelerators.eks_max_pods("p5.48xlarge", 192) == 100
    assert accelerators.eks_max_pods("m6i.16xlarge", 64) == 250


def test_aks_allocatable_reserves_per_pod_memory_capped_at_a_quarter():
    got = allocatable.aks(8, 32)
    assert got["cpu"] == 8000 - 180
    assert got["memory"] == 32 * GiB - (20 * 250 + 50) * 10**6 - 100 * MiB
    small = allocatable.aks(2, 8)
    assert small["memory"] == 8 * GiB - 2 * GiB - 100 * MiB  # 25% cap


def test_onprem_reserves_whole_cpus_for_the_static_cpu_manager():
    got = allocatable.onprem(16, 64)
    assert got["cpu"] == 15000
    assert got["memory"] == 64 * GiB - int(GiB + 0.8 * GiB + 0.8 * GiB + 0.06 * 48 * GiB) - 100 * MiB


@pytest.mark.parametrize(("cloud", "instance_type", "vcpus", "memory", "gpus"), [
    ("aws", "g6e.12xlarge", 48, 384, 4), ("aws", "p4d.24xlarge", 96, 1152, 8), ("aws", "c6i.4xlarge", 16, 32, 0),
    ("azure", "Standard_D8s_v5", 8, 32, 0), ("azure", "Standard_E16s_v5", 16, 128, 0),
    ("azure", "Standard_NC40ads_H100_v5", 40, 320, 1),
])
def test_instance_shapes_come_from_the_catalog(cloud, instance_type, vcpus, memory, gpus):
    shape = accelerators.instance_shape(cloud, instance_type)
    assert (shape.vcpus, shape.memory_gib, shape.gpus) == (vcpus, memory, gpus)


def test_unknown_types_have_no_shape():
    assert accelerators.instance_shape("aws", "t3.medium") is None
    assert accelerators.instance_shape("azure", "Standard_B2s") is None


@pytest.mark.parametrize(("vm_size", "vcpus", "memory"), [
    # Dv2/DSv2: the number names the size, not the vCPUs (Microsoft Learn, "Dv2 and DSv2-series").
    ("Standard_D2_v2", 2, 7), ("Standard_D11_v2", 2, 14), ("Standard_D14_v2", 16, 112),
    ("Standard_DS15_v2", 20, 140),
    # l: 2 GiB per vCPU ("Dlsv5 and Dldsv5-series"); a, d, s change no figure.
    ("Standard_D8ls_v5", 8, 16), ("Standard_D96lds_v5", 96, 192), ("Standard_D96ads_v5", 96, 384),
    ("Standard_D48a_v4", 48, 192),
    # E: 8 GiB per vCPU but for the largest sizes; F: 2.
    ("Standard_E2_v3", 2, 16), ("Standard_E64s_v3", 64, 432), ("Standard_E64ds_v4", 64, 504),
    ("Standard_E96s_v5", 96, 672), ("Standard_E96ads_v5", 96, 672), ("Standard_E20as_v5", 20, 160),
    ("Standard_F72s_v2", 72, 144),
])
def test_azure_cpu_shapes_are_the_series_published_figures(vm_size, vcpus, memory):
    shape = accelerators.instance_shape("azure", vm_size)
    assert (shape.vcpus, shape.memory_gib, shape.gpus) == (vcpus, memory, 0)


@pytest.mark.parametrize("vm_size", ["Standard_D8ps_v5", "Standard_E96ias_v5", "Standard_D8as_v6", "Standard_D1_v2",
                                     "Standard_D16_v2", "Standard_M128s", "Standard_L8s_v3", "Standard_A4_v2"])
def test_azure_sizes_outside_the_known_series_have_no_shape_rather_than_a_guess(vm_size):
    assert accelerators.instance_shape("azure", vm_size) is None
    assert accelerators.accelerator_of_instance("azure", vm_size) is None


def test_every_known_azure_cpu_size_is_named_by_its_vcpus_from_v3_on():
    for series in accelerators.AZURE_CPU_SERIES:
        assert series.page.endswith("-series") and series.sizes, series.label
        if series.label != "Dv2/DSv2":
            assert all(n == vcpus for n, (vcpus, _) in series.sizes.items()), series.label


def test_every_gpu_type_of_the_catalog_has_a_shape_with_its_gpu_count():
    for (cloud, _), candidates in accelerators.DEFAULT_INSTANCE_TYPES.items():
        for instance_type in candidates:
            shape = accelerators.instance_shape(cloud, instance_type)
            assert shape is not None, instance_type
            assert shape.gpus == (accelerators.gpus_per_instance(cloud, instance_type) or 0)


GPU = Taint("nvidia.com/gpu", "present", "NoSchedule")


@pytest.mark.parametrize(("tolerations", "ok"), [
    ([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], True),
    ([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present"}], True),
    ([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "absent"}], False),
    ([{"operator": "Exists"}], True),
    ([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}], False),
    ([], False),
])
def test_tolerations_match_as_the_scheduler_matches(tolerations, ok):
    assert tolerates(tolerations, GPU) is ok


def test_required_node_affinity_ors_terms_and_ands_expressions():
    labels = {"sahab.io/pool": "a", "zone": "1"}
    term = {"matchExpressions": [{"key": "sahab.io/pool", "operator": "In", "values": ["a"]},
                                 {"key": "sahab.io/validation", "operator": "NotIn", "values": ["failed"]}]}
    assert affinity_matches(labels, [term])
    assert not affinity_matches({**labels, "sahab.io/validation": "failed"}, [term])
    assert affinity_matches(labels, [{"matchExpressions": [{"key": "x", "operator": "Exists"}]}, term])
    assert not affinity_matches(labels, [{"matchExpressions": [{"key": "zone", "operator": "Gt", "values": ["1"]}]}])
    assert affinity_matches(labels, None)

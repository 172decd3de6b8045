"""The hardware catalog's AWS node shapes are EC2's own figures: every size EC2 lists of a family the catalog
covers is known, with the vCPUs, memory, GPUs and GPU memory EC2's DescribeInstanceTypes gives (moto's bundled
copy of AWS's data, in-process), and sizes the region sells are placed and judged like any other."""

import re
from pathlib import Path

import pytest
from sahab.components import accelerators, offerings
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from tests.fleets import stack_fleet

MiB = 1 / 1024  # GiB


@pytest.fixture(scope="module")
def ec2_instance_types():
    """Every instance type moto's EC2 API describes, by name (no request leaves the process)."""
    pytest.importorskip("moto")
    import boto3
    from moto import mock_aws

    with pytest.MonkeyPatch.context() as env:
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
            env.delenv(name, raising=False)
        env.setenv("AWS_ACCESS_KEY_ID", "testing")
        env.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        with mock_aws():
            ec2 = boto3.client("ec2", region_name="me-central-1")
            pages = ec2.get_paginator("describe_instance_types").paginate()
            return {info["InstanceType"]: info for page in pages for info in page["InstanceTypes"]}


def _ec2_shape(info: dict) -> tuple:
    gpus = (info.get("GpuInfo") or {}).get("Gpus") or []
    return (info["VCpuInfo"]["DefaultVCpus"], info["MemoryInfo"]["SizeInMiB"] * MiB, sum(g["Count"] for g in gpus),
            gpus[0]["MemoryInfo"]["SizeInMiB"] * MiB if gpus else 0)


@pytest.mark.moto
def test_every_size_ec2_lists_of_a_catalog_family_has_ec2s_shape(ec2_instance_types):
    families = {f for acc in accelerators.CATALOG.values() for f in acc.aws_families}
    listed = {name for name in ec2_instance_types if name.partition(".")[0] in families}
    assert listed >= {"p5.4xlarge", "c5.9xlarge", "c5.18xlarge", "m5.metal", "m7i.metal-48xl"}
    known = {f"{f}.{size}" for f in families for size in accelerators.AWS_SIZES[f]}
    assert known == listed  # no size EC2 sells is missing, none EC2 does not sell is invented
    for name in sorted(listed):
        shape = accelerators.instance_shape("aws", name)
        assert shape is not None, name
        assert (shape.vcpus, shape.memory_gib, shape.gpus, shape.gpu_memory_gib) == _ec2_shape(
            ec2_instance_types[name]), name
        assert shape.gpus == (accelerators.gpus_per_instance("aws", name) or 0), name


@pytest.mark.parametrize(("instance_type", "vcpus", "memory_gib", "gpus", "gpu_memory_mib"), [
    ("p5.4xlarge", 16, 256, 1, 81920), ("p5.48xlarge", 192, 2048, 8, 81920), ("c5.9xlarge", 36, 72, 0, 0),
    ("c5.18xlarge", 72, 144, 0, 0), ("c5.metal", 96, 192, 0, 0), ("m6i.metal", 128, 512, 0, 0),
    ("r7i.metal-24xl", 96, 768, 0, 0), ("g4dn.metal", 96, 384, 8, 16384),
    # What EC2 reports of an A10G and an L40S, not the 24 and 48 GB on the box: what a pod can allocate.
    ("g5.xlarge", 4, 16, 1, 22888), ("g6e.12xlarge", 48, 384, 4, 45776),
])
def test_aws_shapes_are_ec2s_figures(instance_type, vcpus, memory_gib, gpus, gpu_memory_mib):
    shape = accelerators.instance_shape("aws", instance_type)
    assert (shape.vcpus, shape.memory_gib, shape.gpus) == (vcpus, memory_gib, gpus)
    assert shape.gpu_memory_gib == gpu_memory_mib * MiB


def test_sizes_of_the_catalog_no_zone_of_a_region_sells_are_still_known_but_not_placed_there():
    snap = offerings.snapshot("aws", "me-central-1")
    sold = ["c5.9xlarge", "c5.18xlarge", "c5.metal", "m5.metal", "r5.metal", "m6i.metal", "r6i.metal",
            "m7i.metal-24xl", "m7i.metal-48xl", "c7i.metal-24xl", "c7i.metal-48xl"]
    assert all(snap.offered[t] == ("mec1-az1", "mec1-az2", "mec1-az3") for t in sold)
    assert not any(snap.sells(t) for t in ("p5.4xlarge", "c6i.metal", "r7i.metal-24xl", "g4dn.metal"))
    assert "p5.4xlarge" in offerings.snapshot("aws", "us-east-1").offered
    for name in sold:
        fleet = stack_fleet("prod")
        fleet["node_pools"].append({"name": "extra", "cluster": "eks-main", "instance_type": name, "max_size": 1})
        assert parse_fleet(fleet).node_pools[-1].zones == ("mec1-az1", "mec1-az2", "mec1-az3"), name
    fleet = stack_fleet("prod")
    fleet["node_pools"].append({"name": "extra", "cluster": "eks-main", "accelerator": "h100",
                                "instance_type": "p5.4xlarge", "max_size": 1})
    with pytest.raises(ConfigError, match="'h100' is not offered in me-central-1"):
        parse_fleet(fleet)


# ---- Azure ------------------------------------------------------------------------------------------------------
AZURE_SIZES = Path(__file__).resolve().parents[2] / "fixtures" / "azure-vm-sizes.txt"


def _azure_skus() -> dict[str, tuple[int, float, int]]:
    """vCPUs, GB of memory and GPUs per VM size, as Azure's Resource SKUs give them (the fixture's source)."""
    line = re.compile(r"(Standard_\S+) — (\d+) vCPUs — ([\d.]+) GB RAM(?: — (\d+) GPU\(s\))?( — .*)?")
    found = {}
    for text in AZURE_SIZES.read_text().splitlines():
        if text and not text.startswith("#"):
            name, vcpus, memory, gpus, _ = line.fullmatch(text).groups()
            found[name] = (int(vcpus), float(memory), int(gpus or 0))
    return found


def test_every_azure_size_of_the_catalog_has_the_resource_skus_vcpus_memory_and_gpus():
    skus = _azure_skus()
    known = [*accelerators._AZURE_CPU_SHAPES,
             *(size for acc in accelerators.CATALOG.values() if acc.name != "cpu" for size in acc.azure_series)]
    assert set(known) == set(skus)
    assert skus["Standard_ND96amsr_A100_v4"] == (96, 1800, 8)
    for size in known:
        shape = accelerators.instance_shape("azure", size)
        assert (shape.vcpus, shape.memory_gib, shape.gpus) == skus[size], size


@pytest.mark.parametrize(("vm_size", "ec2_type"), [
    ("Standard_NC4as_T4_v3", "g4dn.xlarge"), ("Standard_ND96asr_v4", "p4d.24xlarge"),
    ("Standard_ND96amsr_A100_v4", "p4de.24xlarge"), ("Standard_NC24ads_A100_v4", "p4de.24xlarge"),
    ("Standard_ND96isr_H100_v5", "p5.48xlarge"), ("Standard_ND96isr_H200_v5", "p5e.48xlarge"),
])
def test_an_azure_gpu_has_the_memory_ec2_reports_for_the_same_gpu(vm_size, ec2_type):
    """Resource SKUs give no GPU memory: an Azure size's is the one EC2 reports for the same part (T4, A100 40 and
    80 GB, H100 80 GB, H200), so a pod's fit does not depend on the cloud; the H100 NVL (94 GB) EC2 does not sell."""
    assert accelerators.instance_shape("azure", vm_size).gpu_memory_gib == \
        accelerators.instance_shape("aws", ec2_type).gpu_memory_gib


# ---- EKS max pods -------------------------------------------------------------------------------------------------
ENI_MAX_PODS = Path(__file__).resolve().parents[2] / "fixtures" / "eni-max-pods.txt"


def test_every_aws_type_of_the_catalog_admits_the_pods_the_vpc_cni_lists_capped_by_managed_node_groups():
    listed = dict(line.split() for line in ENI_MAX_PODS.read_text().splitlines() if line and not line.startswith("#"))
    known = {t for acc in accelerators.CATALOG for t in accelerators.instance_types("aws", acc)}
    assert set(listed) == known
    for name, pods in listed.items():
        vcpus = accelerators.instance_shape("aws", name).vcpus
        assert accelerators.eks_max_pods(name, vcpus) == min(int(pods), 110 if vcpus < 30 else 250), name

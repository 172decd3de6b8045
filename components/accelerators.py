"""The accelerator catalog for node pools: which instance types carry which accelerator, and where.

Pure data and lookups, no Pulumi. The benchmark floors for each hardware class live in
`workloads/bench/hardware_classes.py`; this module answers "is this instance type an H100 box?". Which region
and zone sells a type is not written here: it is the clouds' own data, in components/offerings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Accelerator:
    name: str
    vendor: str  # "nvidia" or "" for CPU
    aws_families: tuple[str, ...]  # instance families (prefix before the dot)
    azure_series: tuple[str, ...]  # VM size prefixes (Standard_<series>...)

    @property
    def is_gpu(self) -> bool:
        return self.vendor == "nvidia"


CATALOG: dict[str, Accelerator] = {
    a.name: a
    for a in (
        Accelerator("h100", "nvidia", ("p5",), ("Standard_ND96isr_H100_v5", "Standard_NC40ads_H100_v5",
                                                "Standard_NC80adis_H100_v5")),
        Accelerator("h200", "nvidia", ("p5e", "p5en"), ("Standard_ND96isr_H200_v5",)),
        Accelerator("a100", "nvidia", ("p4d", "p4de"), ("Standard_ND96asr_v4", "Standard_ND96amsr_A100_v4",
                                                        "Standard_NC24ads_A100_v4",
                                                        "Standard_NC48ads_A100_v4",
                                                        "Standard_NC96ads_A100_v4")),
        Accelerator("l40s", "nvidia", ("g6e",), ()),
        Accelerator("a10g", "nvidia", ("g5",), ()),
        Accelerator("t4", "nvidia", ("g4dn",), ("Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3",
                                        "Standard_NC16as_T4_v3", "Standard_NC64as_T4_v3")),
        Accelerator("cpu", "", ("m6i", "m7i", "c6i", "c7i", "r6i", "r7i", "m5", "c5", "r5"),
                    ("Standard_D", "Standard_E", "Standard_F")),
    )
}

# The default instance type per (cloud, accelerator), in order of preference: a pool that names none gets the
# first one its region sells (components.offerings), e.g. h200 in me-central-1 -> p5en.48xlarge.
DEFAULT_INSTANCE_TYPES: dict[tuple[str, str], tuple[str, ...]] = {
    ("aws", "cpu"): ("m6i.2xlarge", "m7i.2xlarge", "m5.2xlarge", "c7i.2xlarge", "r7i.2xlarge"),
    ("aws", "t4"): ("g4dn.xlarge",),
    ("aws", "a10g"): ("g5.2xlarge",),
    ("aws", "l40s"): ("g6e.2xlarge",),
    ("aws", "a100"): ("p4d.24xlarge", "p4de.24xlarge"),
    ("aws", "h100"): ("p5.48xlarge",),
    ("aws", "h200"): ("p5e.48xlarge", "p5en.48xlarge"),
    ("azure", "cpu"): ("Standard_D8s_v5",),
    ("azure", "t4"): ("Standard_NC4as_T4_v3",),
    ("azure", "a100"): ("Standard_NC24ads_A100_v4",),
    ("azure", "h100"): ("Standard_NC40ads_H100_v5",),
    ("azure", "h200"): ("Standard_ND96isr_H200_v5",),
}


# GPUs per instance where a family's sizes differ (every other GPU size in the catalog carries one).
_MULTI_GPU_SIZES: dict[str, int] = {
    "g4dn.12xlarge": 4, "g4dn.metal": 8, "g5.12xlarge": 4, "g5.24xlarge": 4, "g5.48xlarge": 8,
    "g6e.12xlarge": 4, "g6e.24xlarge": 4, "g6e.48xlarge": 8, "p4d.24xlarge": 8, "p4de.24xlarge": 8,
    "p5.48xlarge": 8, "p5e.48xlarge": 8, "p5en.48xlarge": 8,
    "Standard_NC64as_T4_v3": 4, "Standard_NC48ads_A100_v4": 2, "Standard_NC96ads_A100_v4": 4,
    "Standard_ND96asr_v4": 8, "Standard_ND96amsr_A100_v4": 8, "Standard_NC80adis_H100_v5": 2,
    "Standard_ND96isr_H100_v5": 8, "Standard_ND96isr_H200_v5": 8,
}


def gpus_per_instance(cloud: str, instance_type: str) -> int | None:
    """GPUs on one instance of a GPU type from the catalog; None for types the catalog does not know."""
    accelerator = accelerator_of_instance(cloud, instance_type)
    if accelerator is None or not CATALOG[accelerator].is_gpu:
        return None
    return _MULTI_GPU_SIZES.get(instance_type, 1)


# The sizes each AWS family sells: a whole type (family.size) must be one of these, so `g5.bogus` and anything
# with trailing text are unknown rather than matched on their family alone.
_SIZES_6I = ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "32xlarge",
             "metal")
_SIZES_7I = ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge",
             "metal-24xl", "metal-48xl")
_SIZES_5 = ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "metal")
_SIZES_G = ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")
AWS_SIZES: dict[str, tuple[str, ...]] = {
    "m6i": _SIZES_6I, "c6i": _SIZES_6I, "r6i": _SIZES_6I, "m7i": _SIZES_7I, "c7i": _SIZES_7I, "r7i": _SIZES_7I,
    "m5": _SIZES_5, "r5": _SIZES_5,
    "c5": ("large", "xlarge", "2xlarge", "4xlarge", "9xlarge", "12xlarge", "18xlarge", "24xlarge", "metal"),
    "g4dn": ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "metal"),
    "g5": _SIZES_G, "g6e": _SIZES_G,
    "p4d": ("24xlarge",), "p4de": ("24xlarge",), "p5": ("4xlarge", "48xlarge"), "p5e": ("48xlarge",),
    "p5en": ("48xlarge",),
}
# Azure general purpose (D), memory optimised (E) and compute optimised (F) sizes: Standard_<series><vCPUs>
# <features>_v<generation>, e.g. Standard_D8s_v5, Standard_E16ads_v5, Standard_F8s_v2.
_AZURE_CPU_SIZE = re.compile(r"Standard_[DEF][1-9][0-9]{0,2}[adilmpst]*_v[2-6]")


def instance_types(cloud: str, accelerator: str) -> list[str]:
    """Every instance type the catalog knows for an accelerator, in family order (Azure CPU sizes follow a
    pattern rather than a list: none are listed)."""
    if cloud == "aws":
        return [f"{family}.{size}" for family in CATALOG[accelerator].aws_families for size in AWS_SIZES[family]]
    return [] if accelerator == "cpu" else list(CATALOG[accelerator].azure_series)


def azure_rdma(vm_size: str) -> bool:
    """Azure sizes whose name carries `r` among their feature letters have an InfiniBand (RDMA) network
    (Standard_ND96isr_H100_v5), which only works when the cluster sets RDMA up."""
    found = re.fullmatch(r"Standard_[A-Z]+[0-9]+([a-z]*)_.*", vm_size)
    return bool(found and "r" in found.group(1))


def accelerator_of_instance(cloud: str, instance_type: str) -> str | None:
    """The accelerator an instance type carries, or None when the catalog does not know the whole type."""
    for acc in CATALOG.values():
        if cloud == "aws":
            family, _, size = instance_type.partition(".")
            if family in acc.aws_families and size in AWS_SIZES[family]:
                return acc.name
        elif cloud == "azure" and acc.name != "cpu" and instance_type in acc.azure_series:
            return acc.name
    if cloud == "azure" and _AZURE_CPU_SIZE.fullmatch(instance_type):
        return "cpu"
    return None


def default_instance_type(cloud: str, accelerator: str, offerings=None) -> str | None:
    """The first default candidate the region's offerings (a components.offerings.Snapshot) sell; without
    offerings, the first candidate."""
    candidates = DEFAULT_INSTANCE_TYPES.get((cloud, accelerator), ())
    if offerings is not None:
        candidates = tuple(t for t in candidates if offerings.sells(t)) or candidates
    return candidates[0] if candidates else None


# Node labels and taints every pool carries, so schedulers, device plugins and policies agree on them.
LABEL_POOL = "sahab.io/pool"
LABEL_ACCELERATOR = "sahab.io/accelerator"
LABEL_NVIDIA_PRESENT = "nvidia.com/gpu.present"
GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_TAINT_VALUE = "present"
GPU_TAINT_EFFECT = "NoSchedule"
LABEL_DEVICE_PLUGIN_CONFIG = "nvidia.com/device-plugin.config"


def device_plugin_config_name(mig_strategy: str, time_slicing_replicas: int | None) -> str:
    """Name of the NVIDIA device plugin configuration a GPU pool's nodes select with
    LABEL_DEVICE_PLUGIN_CONFIG: it encodes the pool's MIG strategy and GPU sharing."""
    name = f"mig-{mig_strategy}"
    return f"{name}-shared-{time_slicing_replicas}" if time_slicing_replicas else name


# ---- node shapes --------------------------------------------------------------------------------------
# What one instance carries, for judging whether pods fit (sahab.readiness): vCPUs, memory (GiB), GPUs and
# the memory of each GPU (GiB, what MIG profiles are cut from). Figures are the providers' published specs.


@dataclass(frozen=True)
class InstanceShape:
    vcpus: int
    memory_gib: float
    gpus: int = 0
    gpu_memory_gib: int = 0


# GPU instance types, one by one (their sizes do not follow a per-vCPU rule).
_GPU_SHAPES: dict[str, InstanceShape] = {
    **{f"g4dn.{size}": InstanceShape(v, m, g, 16) for size, v, m, g in (
        ("xlarge", 4, 16, 1), ("2xlarge", 8, 32, 1), ("4xlarge", 16, 64, 1), ("8xlarge", 32, 128, 1),
        ("12xlarge", 48, 192, 4), ("16xlarge", 64, 256, 1), ("metal", 96, 384, 8))},
    **{f"g5.{size}": InstanceShape(v, m, g, 24) for size, v, m, g in (
        ("xlarge", 4, 16, 1), ("2xlarge", 8, 32, 1), ("4xlarge", 16, 64, 1), ("8xlarge", 32, 128, 1),
        ("12xlarge", 48, 192, 4), ("16xlarge", 64, 256, 1), ("24xlarge", 96, 384, 4), ("48xlarge", 192, 768, 8))},
    **{f"g6e.{size}": InstanceShape(v, m, g, 48) for size, v, m, g in (
        ("xlarge", 4, 32, 1), ("2xlarge", 8, 64, 1), ("4xlarge", 16, 128, 1), ("8xlarge", 32, 256, 1),
        ("12xlarge", 48, 384, 4), ("16xlarge", 64, 512, 1), ("24xlarge", 96, 768, 4), ("48xlarge", 192, 1536, 8))},
    "p4d.24xlarge": InstanceShape(96, 1152, 8, 40),
    "p4de.24xlarge": InstanceShape(96, 1152, 8, 80),
    "p5.48xlarge": InstanceShape(192, 2048, 8, 80),
    "p5e.48xlarge": InstanceShape(192, 2048, 8, 141),
    "p5en.48xlarge": InstanceShape(192, 2048, 8, 141),
    "Standard_NC4as_T4_v3": InstanceShape(4, 28, 1, 16),
    "Standard_NC8as_T4_v3": InstanceShape(8, 56, 1, 16),
    "Standard_NC16as_T4_v3": InstanceShape(16, 110, 1, 16),
    "Standard_NC64as_T4_v3": InstanceShape(64, 440, 4, 16),
    "Standard_NC24ads_A100_v4": InstanceShape(24, 220, 1, 80),
    "Standard_NC48ads_A100_v4": InstanceShape(48, 440, 2, 80),
    "Standard_NC96ads_A100_v4": InstanceShape(96, 880, 4, 80),
    "Standard_ND96asr_v4": InstanceShape(96, 900, 8, 40),
    "Standard_ND96amsr_A100_v4": InstanceShape(96, 1900, 8, 80),
    "Standard_NC40ads_H100_v5": InstanceShape(40, 320, 1, 94),
    "Standard_NC80adis_H100_v5": InstanceShape(80, 640, 2, 94),
    "Standard_ND96isr_H100_v5": InstanceShape(96, 1900, 8, 80),
    "Standard_ND96isr_H200_v5": InstanceShape(96, 1850, 8, 141),
}

# AWS CPU families: GiB of memory per vCPU; sizes: vCPUs per size name.
_AWS_MEMORY_PER_VCPU = {"m": 4, "c": 2, "r": 8}
_AWS_SIZES = {"large": 2, "xlarge": 4, "2xlarge": 8, "4xlarge": 16, "8xlarge": 32, "12xlarge": 48, "16xlarge": 64,
              "24xlarge": 96, "32xlarge": 128, "48xlarge": 192}
# Azure general purpose (D), memory optimised (E) and compute optimised (F) sizes: GiB per vCPU.
_AZURE_CPU_SERIES = re.compile(r"^Standard_(?P<series>[DEF])(?P<vcpus>[0-9]+)[a-z]*_v[0-9]$")
_AZURE_MEMORY_PER_VCPU = {"D": 4, "E": 8, "F": 2}


def instance_shape(cloud: str, instance_type: str) -> InstanceShape | None:
    """vCPUs, memory and GPUs of one instance of a type; None when the catalog does not know the type."""
    if instance_type in _GPU_SHAPES:
        return _GPU_SHAPES[instance_type]
    if cloud == "aws":
        family, _, size = instance_type.partition(".")
        if accelerator_of_instance(cloud, instance_type) == "cpu" and size in _AWS_SIZES:
            vcpus = _AWS_SIZES[size]
            return InstanceShape(vcpus, vcpus * _AWS_MEMORY_PER_VCPU[family[0]])
    if cloud == "azure":
        match = _AZURE_CPU_SERIES.match(instance_type)
        if match:
            vcpus = int(match["vcpus"])
            return InstanceShape(vcpus, vcpus * _AZURE_MEMORY_PER_VCPU[match["series"]])
    return None


# Pods an EKS node runs with the VPC CNI (no prefix delegation): ENIs x (IPv4 addresses per ENI - 1) + 2, as
# listed in amazon-vpc-cni-k8s `misc/eni-max-pods.txt`. Managed node groups cap it at 110 below 30 vCPUs,
# else 250.
_EKS_ENI_MAX_PODS = {
    "large": 29, "xlarge": 58, "2xlarge": 58, "4xlarge": 234, "8xlarge": 234, "12xlarge": 234, "16xlarge": 737,
    "24xlarge": 737, "32xlarge": 737, "48xlarge": 737,
}
_EKS_ENI_MAX_PODS_BY_TYPE = {
    "g4dn.xlarge": 29, "g4dn.2xlarge": 29, "g4dn.4xlarge": 29, "g4dn.8xlarge": 58, "g4dn.16xlarge": 58,
    "g4dn.metal": 737, "g5.12xlarge": 737, "g5.24xlarge": 737, "g5.48xlarge": 345, "p4d.24xlarge": 737,
    "p4de.24xlarge": 737, "p5.48xlarge": 100, "p5e.48xlarge": 100, "p5en.48xlarge": 100,
}


def eks_max_pods(instance_type: str, vcpus: int) -> int:
    """Pods the kubelet of an EKS managed node group node admits (what its memory reservation is sized by)."""
    eni = _EKS_ENI_MAX_PODS_BY_TYPE.get(instance_type) or _EKS_ENI_MAX_PODS.get(instance_type.partition(".")[2], 110)
    return min(eni, 110 if vcpus < 30 else 250)


# ---- MIG ------------------------------------------------------------------------------------------------
# MIG-capable accelerators and the GPU memory of an on-prem card (cloud types carry their own in the shape).
MIG_GPU_MEMORY_GIB: dict[str, int] = {"a100": 80, "h100": 80, "h200": 141}

# The NVIDIA MIG manager's `nvidia.com/mig.config` layouts, per GPU memory size: the devices one GPU is cut
# into (profile -> count), as the default mig-parted configuration defines them.
MIG_LAYOUTS: dict[int, dict[str, dict[str, int]]] = {
    40: {"all-1g.5gb": {"1g.5gb": 7}, "all-2g.10gb": {"2g.10gb": 3}, "all-3g.20gb": {"3g.20gb": 2},
         "all-4g.20gb": {"4g.20gb": 1}, "all-7g.40gb": {"7g.40gb": 1},
         "all-balanced": {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}},
    80: {"all-1g.10gb": {"1g.10gb": 7}, "all-1g.20gb": {"1g.20gb": 4}, "all-2g.20gb": {"2g.20gb": 3},
         "all-3g.40gb": {"3g.40gb": 2}, "all-4g.40gb": {"4g.40gb": 1}, "all-7g.80gb": {"7g.80gb": 1},
         "all-balanced": {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}},
    94: {"all-1g.12gb": {"1g.12gb": 7}, "all-1g.24gb": {"1g.24gb": 4}, "all-2g.24gb": {"2g.24gb": 3},
         "all-3g.47gb": {"3g.47gb": 2}, "all-4g.47gb": {"4g.47gb": 1}, "all-7g.94gb": {"7g.94gb": 1},
         "all-balanced": {"1g.12gb": 2, "2g.24gb": 1, "3g.47gb": 1}},
    141: {"all-1g.18gb": {"1g.18gb": 7}, "all-1g.35gb": {"1g.35gb": 4}, "all-2g.35gb": {"2g.35gb": 3},
          "all-3g.71gb": {"3g.71gb": 2}, "all-4g.71gb": {"4g.71gb": 1}, "all-7g.141gb": {"7g.141gb": 1},
          "all-balanced": {"1g.18gb": 2, "2g.35gb": 1, "3g.71gb": 1}},
}
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
MIG_DISABLED = "all-disabled"

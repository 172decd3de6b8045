"""The accelerator catalog for node pools: which instance types carry which accelerator, and where.

Pure data and lookups, no Pulumi. The benchmark floors for each hardware class live in
`workloads/bench/hardware_classes.py`; this module answers "is this instance type an H100 box?". Which region
and zone sells a type is not written here: it is the clouds' own data, in components/offerings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sahab.components import offerings


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


def gpus_per_instance(cloud: str, instance_type: str) -> int | None:
    """GPUs on one instance of a GPU type from the catalog (its shape's); None for types the catalog does not
    know."""
    accelerator = accelerator_of_instance(cloud, instance_type)
    shape = instance_shape(cloud, instance_type)
    if accelerator is None or not CATALOG[accelerator].is_gpu or shape is None:
        return None
    return shape.gpus


# The sizes each AWS family sells: a whole type (family.size) must be one of these, so `g5.bogus` and anything
# with trailing text are unknown rather than matched on their family alone. Every size EC2 lists of these families,
# and only those (tests/components/clouds/test_instance_shapes.py holds this to EC2's DescribeInstanceTypes).
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


def instance_types(cloud: str, accelerator: str) -> list[str]:
    """Every instance type the catalog knows for an accelerator, in family order (Azure CPU sizes are known by
    series, AZURE_CPU_SERIES: none are listed here)."""
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
    if cloud == "azure" and instance_type in _AZURE_CPU_SHAPES:
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
# What one instance carries, for judging whether pods fit (sahab.readiness): vCPUs, memory (GiB), GPUs and the
# memory of each GPU (GiB, what MIG profiles are cut from). AWS: EC2's own figures (DescribeInstanceTypes, in
# components/offerings); Azure: the Resource SKUs' vCPUs, memory and GPUs, with each GPU's memory as published.


@dataclass(frozen=True)
class InstanceShape:
    vcpus: int
    memory_gib: float
    gpus: int = 0
    # Per GPU, the memory a pod can allocate, as the cloud reports it: EC2 gives an A10G 22888 MiB, not the 24 GB
    # on the box. Whole GiB on the MIG parts (A100, H100, H200), which MIG_LAYOUTS are keyed by.
    gpu_memory_gib: float = 0


# Azure GPU sizes, one by one (their sizes do not follow a per-vCPU rule). vCPUs, GiB and GPUs are the Resource
# SKUs' (tests/fixtures/azure-vm-sizes.txt, from microsoft/aspire's AksNodeVmSizes.Generated.cs); the SKUs give no
# GPU memory, so each GPU's is EC2's figure for the same part (the H100 NVL, which EC2 does not sell, keeps the
# published one).
_AZURE_GPU_SHAPES: dict[str, InstanceShape] = {
    "Standard_NC4as_T4_v3": InstanceShape(4, 28, 1, 16),
    "Standard_NC8as_T4_v3": InstanceShape(8, 56, 1, 16),
    "Standard_NC16as_T4_v3": InstanceShape(16, 110, 1, 16),
    "Standard_NC64as_T4_v3": InstanceShape(64, 440, 4, 16),
    "Standard_NC24ads_A100_v4": InstanceShape(24, 220, 1, 80),
    "Standard_NC48ads_A100_v4": InstanceShape(48, 440, 2, 80),
    "Standard_NC96ads_A100_v4": InstanceShape(96, 880, 4, 80),
    "Standard_ND96asr_v4": InstanceShape(96, 900, 8, 40),
    "Standard_ND96amsr_A100_v4": InstanceShape(96, 1800, 8, 80),
    "Standard_NC40ads_H100_v5": InstanceShape(40, 320, 1, 94),
    "Standard_NC80adis_H100_v5": InstanceShape(80, 640, 2, 94),
    "Standard_ND96isr_H100_v5": InstanceShape(96, 1900, 8, 80),
    "Standard_ND96isr_H200_v5": InstanceShape(96, 1850, 8, 141),
}


@dataclass(frozen=True)
class AzureCpuSeries:
    """One Azure CPU VM series the catalog knows, as its Microsoft Learn page lists it. `sizes` maps the number in
    the size's name to (vCPUs, GiB of memory): in v3 and later series that number is the vCPU count and memory is
    vCPUs x GiB per vCPU, except where the page lists otherwise; in Dv2/DSv2 it is neither."""

    label: str  # e.g. Dsv5
    page: str  # the Microsoft Learn page that lists the series' sizes
    names: tuple[str, ...]  # size names, `{n}` for the number, e.g. "D{n}s_v5" -> Standard_D8s_v5
    sizes: dict[int, tuple[int, float]]


def _per_vcpu(vcpus: tuple[int, ...], gib_per_vcpu: int, **listed: float) -> dict[int, tuple[int, float]]:
    """Sizes of a series whose memory is vCPUs x GiB per vCPU, but for the sizes listed as `n<vCPUs>=GiB`."""
    return {n: (n, listed.get(f"n{n}", n * gib_per_vcpu)) for n in vcpus}


_D_V3 = (2, 4, 8, 16, 32, 48, 64)
_D_V5 = (2, 4, 8, 16, 32, 48, 64, 96)
_E_V3 = (2, 4, 8, 16, 20, 32, 48, 64)
_E_V5 = (2, 4, 8, 16, 20, 32, 48, 64, 96)
# Every size below was checked (vCPUs and GiB) against Azure's Resource SKUs as microsoft/aspire's generated
# src/Aspire.Hosting.Azure.Kubernetes/AksNodeVmSizes.Generated.cs lists them (commit 59d405f, 2026-08), which
# lists no other size of these names. Only series whose every size is certain: any other Azure CPU size (A, B,
# Dv6 and later, Arm `p` sizes, isolated `i` and constrained-vCPU sizes, H, L, M, ...) is not in the catalog and
# a pool naming it is refused.
# Letters: a = AMD, d = local disk, s = premium storage, l = 2 GiB per vCPU (a D size has 4).
AZURE_CPU_SERIES: tuple[AzureCpuSeries, ...] = (
    AzureCpuSeries("Dv2/DSv2", "Dv2 and DSv2-series", ("D{n}_v2", "DS{n}_v2"), {
        2: (2, 7), 3: (4, 14), 4: (8, 28), 5: (16, 56), 11: (2, 14), 12: (4, 28), 13: (8, 56), 14: (16, 112),
        15: (20, 140)}),
    AzureCpuSeries("Dv3/Dsv3", "Dv3 and Dsv3-series", ("D{n}_v3", "D{n}s_v3"), _per_vcpu(_D_V3, 4)),
    AzureCpuSeries("Dv4/Dsv4", "Dv4 and Dsv4-series", ("D{n}_v4", "D{n}s_v4"), _per_vcpu(_D_V3, 4)),
    AzureCpuSeries("Ddv4/Ddsv4", "Ddv4 and Ddsv4-series", ("D{n}d_v4", "D{n}ds_v4"), _per_vcpu(_D_V3, 4)),
    AzureCpuSeries("Dav4/Dasv4", "Dav4 and Dasv4-series", ("D{n}a_v4", "D{n}as_v4"), _per_vcpu(_D_V5, 4)),
    AzureCpuSeries("Dv5/Dsv5", "Dv5 and Dsv5-series", ("D{n}_v5", "D{n}s_v5"), _per_vcpu(_D_V5, 4)),
    AzureCpuSeries("Ddv5/Ddsv5", "Ddv5 and Ddsv5-series", ("D{n}d_v5", "D{n}ds_v5"), _per_vcpu(_D_V5, 4)),
    AzureCpuSeries("Dasv5/Dadsv5", "Dasv5 and Dadsv5-series", ("D{n}as_v5", "D{n}ads_v5"), _per_vcpu(_D_V5, 4)),
    AzureCpuSeries("Dlsv5/Dldsv5", "Dlsv5 and Dldsv5-series", ("D{n}ls_v5", "D{n}lds_v5"), _per_vcpu(_D_V5, 2)),
    AzureCpuSeries("Ev3/Esv3", "Ev3 and Esv3-series", ("E{n}_v3", "E{n}s_v3"), _per_vcpu(_E_V3, 8, n64=432)),
    AzureCpuSeries("Ev4/Esv4", "Ev4 and Esv4-series", ("E{n}_v4", "E{n}s_v4"), _per_vcpu(_E_V3, 8, n64=504)),
    AzureCpuSeries("Edv4/Edsv4", "Edv4 and Edsv4-series", ("E{n}d_v4", "E{n}ds_v4"), _per_vcpu(_E_V3, 8, n64=504)),
    AzureCpuSeries("Ev5/Esv5", "Ev5 and Esv5-series", ("E{n}_v5", "E{n}s_v5"), _per_vcpu(_E_V5, 8, n96=672)),
    AzureCpuSeries("Edv5/Edsv5", "Edv5 and Edsv5-series", ("E{n}d_v5", "E{n}ds_v5"), _per_vcpu(_E_V5, 8, n96=672)),
    AzureCpuSeries("Easv5/Eadsv5", "Easv5 and Eadsv5-series", ("E{n}as_v5", "E{n}ads_v5"),
                   _per_vcpu(_E_V5, 8, n96=672)),
    AzureCpuSeries("Fsv2", "Fsv2-series", ("F{n}s_v2",), _per_vcpu((2, 4, 8, 16, 32, 48, 64, 72), 2)),
)
_AZURE_CPU_SHAPES: dict[str, InstanceShape] = {
    f"Standard_{name.format(n=n)}": InstanceShape(vcpus, memory)
    for series in AZURE_CPU_SERIES for name in series.names for n, (vcpus, memory) in series.sizes.items()
}


def instance_shape(cloud: str, instance_type: str) -> InstanceShape | None:
    """vCPUs, memory and GPUs of one instance of a type; None when the catalog does not know the type."""
    if cloud == "aws":
        facts = offerings.aws_instance(instance_type) if accelerator_of_instance(cloud, instance_type) else None
        if facts is None:
            return None
        return InstanceShape(facts.vcpus, facts.memory_mib / 1024, facts.gpus, facts.gpu_memory_mib / 1024)
    if cloud == "azure":
        return _AZURE_GPU_SHAPES.get(instance_type) or _AZURE_CPU_SHAPES.get(instance_type)
    return None


# Pods an EKS node runs with the VPC CNI (no prefix delegation): ENIs x (IPv4 addresses per ENI - 1) + 2, as
# listed in amazon-vpc-cni-k8s `misc/eni-max-pods.txt` (tests/fixtures/eni-max-pods.txt: every catalog type's).
# Managed node groups cap it at 110 below 30 vCPUs, else 250.
_EKS_ENI_MAX_PODS = {
    "large": 29, "xlarge": 58, "2xlarge": 58, "4xlarge": 234, "8xlarge": 234, "9xlarge": 234, "12xlarge": 234,
    "16xlarge": 737, "18xlarge": 737, "24xlarge": 737, "32xlarge": 737, "48xlarge": 737, "metal": 737,
    "metal-24xl": 737, "metal-48xl": 737,
}
_EKS_ENI_MAX_PODS_BY_TYPE = {
    "g4dn.xlarge": 29, "g4dn.2xlarge": 29, "g4dn.4xlarge": 29, "g4dn.8xlarge": 58, "g4dn.16xlarge": 58,
    "g5.12xlarge": 737, "g5.16xlarge": 234, "g5.48xlarge": 345, "g6e.12xlarge": 292, "g6e.24xlarge": 492,
    "g6e.48xlarge": 492,
    "p5.4xlarge": 118, "p5.48xlarge": 100, "p5e.48xlarge": 100, "p5en.48xlarge": 198,
}


def eks_max_pods(instance_type: str, vcpus: int) -> int:
    """Pods the kubelet of an EKS managed node group node admits (what its memory reservation is sized by)."""
    eni = _EKS_ENI_MAX_PODS_BY_TYPE.get(instance_type) or _EKS_ENI_MAX_PODS.get(instance_type.partition(".")[2], 110)
    return min(eni, 110 if vcpus < 30 else 250)


# ---- MIG ------------------------------------------------------------------------------------------------
# The one list of MIG-capable accelerators (A100, H100 and H200 class parts; L40S, A10G and T4 have no MIG), with
# the GPU memory of an on-prem card (cloud types carry their own in the shape).
MIG_GPU_MEMORY_GIB: dict[str, int] = {"a100": 80, "h100": 80, "h200": 141}


def has_mig(accelerator: str) -> bool:
    """The accelerator's GPUs can be cut into MIG devices (a pool's mig_strategy may be single or mixed)."""
    return accelerator in MIG_GPU_MEMORY_GIB


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

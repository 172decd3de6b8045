"""The accelerator catalog for node pools: which instance types carry which accelerator, and where.

Pure data and lookups, no Pulumi. The benchmark floors for each hardware class live in
`workloads/bench/catalog.py`; this module only answers the provisioning questions:
"is this instance type an H100 box?" and "does this region sell it?".

Region offerings are the UAE regions' published instance-type lists as Sahab last checked them
(AWS `describe-instance-type-offerings` for me-central-1; Azure "products available by region" for
UAE North/Central). They change: when a provider adds a type to a region, add it here.
"""

from __future__ import annotations

from dataclasses import dataclass

ACCELERATORS = ("h100", "h200", "a100", "l40s", "a10g", "t4", "cpu")


@dataclass(frozen=True)
class Accelerator:
    name: str
    vendor: str  # "nvidia" or "" for CPU
    bench_class: str  # the hardware class `sahab bench` validates against
    aws_families: tuple[str, ...]  # instance families (prefix before the dot)
    azure_series: tuple[str, ...]  # VM size prefixes (Standard_<series>...)

    @property
    def is_gpu(self) -> bool:
        return self.vendor == "nvidia"


CATALOG: dict[str, Accelerator] = {
    a.name: a
    for a in (
        Accelerator("h100", "nvidia", "h100-sxm", ("p5",), ("Standard_ND96isr_H100_v5", "Standard_NC40ads_H100_v5",
                                                            "Standard_NC80adis_H100_v5")),
        Accelerator("h200", "nvidia", "h200", ("p5e", "p5en"), ("Standard_ND96isr_H200_v5",)),
        Accelerator("a100", "nvidia", "a100-sxm", ("p4d", "p4de"), ("Standard_ND96asr_v4", "Standard_ND96amsr_A100_v4",
                                                                    "Standard_NC24ads_A100_v4",
                                                                    "Standard_NC48ads_A100_v4",
                                                                    "Standard_NC96ads_A100_v4")),
        Accelerator("l40s", "nvidia", "l40s", ("g6e",), ()),
        Accelerator("a10g", "nvidia", "a10g", ("g5",), ()),
        Accelerator("t4", "nvidia", "t4", ("g4dn",), ("Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3",
                                                    "Standard_NC16as_T4_v3", "Standard_NC64as_T4_v3")),
        Accelerator("cpu", "", "cpu", ("m6i", "m7i", "c6i", "c7i", "r6i", "r7i", "m5", "c5", "r5"),
                    ("Standard_D", "Standard_E", "Standard_F")),
    )
}

# Which accelerators each allowed region sells. A pool asking for anything else is refused at config time.
REGION_OFFERINGS: dict[str, frozenset[str]] = {
    "me-central-1": frozenset({"cpu", "t4", "a10g", "l40s"}),
    "uaenorth": frozenset({"cpu", "t4", "a100", "h100"}),
    "uaecentral": frozenset({"cpu", "t4"}),
}

# A sensible default instance type per (cloud, accelerator), used when a pool names none.
DEFAULT_INSTANCE_TYPES: dict[tuple[str, str], str] = {
    ("aws", "cpu"): "m6i.2xlarge",
    ("aws", "t4"): "g4dn.xlarge",
    ("aws", "a10g"): "g5.2xlarge",
    ("aws", "l40s"): "g6e.2xlarge",
    ("aws", "a100"): "p4d.24xlarge",
    ("aws", "h100"): "p5.48xlarge",
    ("aws", "h200"): "p5e.48xlarge",
    ("azure", "cpu"): "Standard_D8s_v5",
    ("azure", "t4"): "Standard_NC4as_T4_v3",
    ("azure", "a100"): "Standard_NC24ads_A100_v4",
    ("azure", "h100"): "Standard_NC40ads_H100_v5",
    ("azure", "h200"): "Standard_ND96isr_H200_v5",
}


def accelerator_of_instance(cloud: str, instance_type: str) -> str | None:
    """The accelerator an instance type carries, or None when the catalog does not know the type."""
    for acc in CATALOG.values():
        if cloud == "aws":
            family = instance_type.split(".", 1)[0]
            if family in acc.aws_families:
                return acc.name
        elif cloud == "azure" and acc.name != "cpu" and instance_type in acc.azure_series:
            return acc.name
    if cloud == "azure" and instance_type.startswith(CATALOG["cpu"].azure_series):
        return "cpu"
    return None


def offered(region: str, accelerator: str) -> bool:
    return accelerator in REGION_OFFERINGS.get(region, frozenset())


def default_instance_type(cloud: str, accelerator: str) -> str | None:
    return DEFAULT_INSTANCE_TYPES.get((cloud, accelerator))


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

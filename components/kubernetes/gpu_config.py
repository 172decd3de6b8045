"""Pure planning for GPU enablement: tolerations, device plugin configurations, DCGM metrics.

No Pulumi here. The GPU operator's device plugin reads one ConfigMap of named configurations; each GPU
node selects one through its `nvidia.com/device-plugin.config` label, which every GPU pool's nodes carry
(`NodePool.node_labels`, named by `accelerators.device_plugin_config_name`). That is how MIG strategy and
time-slicing are chosen per pool rather than per cluster. The ConfigMap holds every combination the fleet
schema allows, so a pool added later, by this stack or by a burst stack joining the cluster, always finds
its configuration without touching the cluster's operator.
"""

from __future__ import annotations

from collections.abc import Iterable

import yaml
from sahab.components import accelerators
from sahab.components.fleet_config import NodePool, Taint

MIG_STRATEGIES = ("none", "single", "mixed")
TIME_SLICING_REPLICAS = range(2, 49)  # NodePool.time_slicing_replicas: 2..48
DEFAULT_CONFIG = accelerators.device_plugin_config_name("none", None)
"""Entry for GPU nodes without the label (e.g. a node added by hand): whole GPUs, no MIG."""


def gpu_toleration() -> dict[str, str]:
    """Tolerates the taint every GPU pool carries, whatever its value."""
    return {"key": accelerators.GPU_TAINT_KEY, "operator": "Exists", "effect": accelerators.GPU_TAINT_EFFECT}


def toleration_for(taint: Taint) -> dict[str, str]:
    return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}


def gpu_pool_tolerations(pools: Iterable[NodePool]) -> list[dict[str, str]]:
    """The GPU taint plus every extra taint of the GPU pools, once each, so GPU agents reach every GPU node."""
    tolerations = [gpu_toleration()]
    for pool in pools:
        for taint in pool.extra_taints:
            toleration = toleration_for(taint)
            if toleration not in tolerations:
                tolerations.append(toleration)
    return tolerations


def device_plugin_config(mig_strategy: str = "none", time_slicing_replicas: int | None = None) -> str:
    """One NVIDIA device plugin configuration file (format `version: v1`)."""
    config: dict = {"version": "v1", "flags": {"migStrategy": mig_strategy}}
    if time_slicing_replicas:
        # Shared GPUs keep the plain resource name, and a pod may ask for one share only: asking for two
        # shares of one GPU would look like two GPUs to the job and give it no more compute.
        config["sharing"] = {"timeSlicing": {
            "renameByDefault": False,
            "failRequestsGreaterThanOne": True,
            "resources": [{"name": "nvidia.com/gpu", "replicas": time_slicing_replicas}],
        }}
    return yaml.safe_dump(config, sort_keys=False)


def device_plugin_configs() -> dict[str, str]:
    """ConfigMap data: one entry per (MIG strategy, time-slicing replicas) the schema allows."""
    data = {}
    for strategy in MIG_STRATEGIES:
        for replicas in (None, *TIME_SLICING_REPLICAS):
            data[accelerators.device_plugin_config_name(strategy, replicas)] = device_plugin_config(strategy, replicas)
    return data


def cluster_mig_strategy(pools: Iterable[NodePool]) -> str:
    """The operator-wide MIG strategy (used by components that read no per-node config): the pools' common
    strategy, or `mixed` when they differ; `mixed` still exposes whole GPUs as `nvidia.com/gpu`."""
    strategies = {p.mig_strategy for p in pools if p.is_gpu}
    return strategies.pop() if len(strategies) == 1 else "mixed"


# DCGM fields the exporter publishes: what the alerts and dashboards read. (DCGM field name, Prometheus type,
# help.) Shipped as the exporter's metrics file so an alert never waits on a metric that is not collected.
DCGM_METRICS: tuple[tuple[str, str, str], ...] = (
    ("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilisation (in %)."),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilisation (in %)."),
    ("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB)."),
    ("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB)."),
    ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C)."),
    ("DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C)."),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."),
    ("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."),
    ("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", "Total single-bit volatile ECC errors."),
    ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total double-bit volatile ECC errors."),
    ("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Rows remapped for uncorrectable errors."),
    ("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed."),
    ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total PCIe retries."),
    ("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "counter", "Total NVLink bandwidth counter."),
    ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active."),
    ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active."),
)


def dcgm_metrics_csv() -> str:
    lines = ["# DCGM field, Prometheus metric type, help message (written by Sahab)"]
    lines += [f"{field}, {kind}, {help_text}" for field, kind, help_text in DCGM_METRICS]
    return "\n".join(lines) + "\n"

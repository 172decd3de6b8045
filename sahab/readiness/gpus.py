"""What a GPU pool's nodes advertise, as the NVIDIA device plugin would: whole GPUs, MIG devices, time-slices.

The device plugin runs where the cluster has the GPU operator (chart `gpu-operator`) or the plugin's own chart
(`nvidia-device-plugin`). Its configuration is the one the node selects with its `nvidia.com/device-plugin.config`
label from the ConfigMap the chart values name (else the values' default), read from the plan. MIG devices come
from the node's `nvidia.com/mig.config` layout (the MIG manager's; absent: MIG off):
- strategy `single`: every GPU cut alike, advertised as `nvidia.com/gpu` (one per MIG device);
- strategy `mixed`: `nvidia.com/mig-<profile>` per profile;
- time-slicing multiplies a resource by its replicas (renamed `<name>.shared` with renameByDefault), and
  with failRequestsGreaterThanOne the plugin refuses a container asking for more than one.
"""

from __future__ import annotations

from typing import Any

import yaml

from sahab.components import accelerators
from sahab.readiness.common import get, unknown
from sahab.readiness.readiness_types import Cluster, Pool

PLUGIN_CHARTS = ("gpu-operator", "nvidia-device-plugin")
CONFIG_LABEL = accelerators.LABEL_DEVICE_PLUGIN_CONFIG


def advertise(cluster: Cluster) -> None:
    """Fill in each GPU pool's device resources (and the rule the plugin enforces) on `cluster`."""
    charts = cluster.charts()
    release = next((charts[c] for c in PLUGIN_CHARTS if c in charts), None)
    for pool in cluster.pools:
        if not pool.gpus or pool.shape_unknown:
            continue
        if release is None and cluster.charts_unknown():
            pool.unknown = "the preview does not know every Helm chart on the cluster yet (a device plugin?)"
            continue
        if release is None:
            pool.gpu_rule = "no NVIDIA device plugin on the cluster (no gpu-operator or nvidia-device-plugin " \
                            "Helm release), so its GPUs are not schedulable"
            continue
        config = _plugin_config(cluster, release, pool)
        mig_layout = pool.labels.get(accelerators.MIG_CONFIG_LABEL)
        if config is None or unknown([get(release.inputs, "values", "mig"), mig_layout]):
            pool.unknown = "the preview does not know its device plugin configuration yet"
            continue
        strategy = str(get(config, "flags", "migStrategy") or get(release.inputs, "values", "mig", "strategy")
                       or "single")
        devices = _devices(pool, strategy)
        for resource in get(config, "sharing", "timeSlicing", "resources", default=[]) or []:
            name, replicas = str(resource.get("name")), int(resource.get("replicas") or 1)
            if name not in devices:
                continue
            shared = f"{name}.shared" if (resource.get("rename") or
                                           get(config, "sharing", "timeSlicing", "renameByDefault")) else name
            devices[shared] = devices.pop(name) * replicas
            if get(config, "sharing", "timeSlicing", "failRequestsGreaterThanOne"):
                pool.max_gpu_request = 1
                pool.gpu_rule = (f"each GPU is time-sliced {replicas} ways with failRequestsGreaterThanOne: the "
                                 f"device plugin refuses a container asking for more than 1 {shared}")
        pool.allocatable.update(devices)


def _devices(pool: Pool, strategy: str) -> dict[str, int]:
    layout_name = pool.labels.get(accelerators.MIG_CONFIG_LABEL, accelerators.MIG_DISABLED)
    layout = accelerators.MIG_LAYOUTS.get(pool.gpu_memory_gib, {}).get(layout_name)
    if layout_name == accelerators.MIG_DISABLED or strategy == "none":
        return {"nvidia.com/gpu": pool.gpus}
    if layout is None:
        pool.gpu_rule = f"MIG layout {layout_name!r} does not exist for a {pool.gpu_memory_gib:g} GB GPU"
        return {}
    if strategy == "single":
        if len(layout) != 1:
            pool.gpu_rule = f"MIG strategy single needs every GPU cut alike; {layout_name!r} mixes profiles"
            return {}
        return {"nvidia.com/gpu": pool.gpus * next(iter(layout.values()))}
    return {f"nvidia.com/mig-{profile}": pool.gpus * count for profile, count in layout.items()}


def _plugin_config(cluster: Cluster, release: Any, pool: Pool) -> dict[str, Any] | None:
    """The device plugin configuration the pool's nodes select ({}: the plugin's defaults; None: a preview does
    not know it yet)."""
    values = release.inputs.get("values") or {}
    config_map = get(values, "devicePlugin", "config", "name")
    entry = pool.labels.get(CONFIG_LABEL) or get(values, "devicePlugin", "config", "default")
    if unknown([config_map, entry, release.inputs.get("namespace")]):
        return None
    if not config_map or not entry:
        return {}
    namespace = release.inputs.get("namespace") or "default"
    for res in cluster.of_kind("ConfigMap"):
        meta = res.inputs.get("metadata") or {}
        if meta.get("name") == config_map and (meta.get("namespace") or "default") == namespace:
            text = (res.inputs.get("data") or {}).get(entry)
            if unknown(text):
                return None
            try:
                loaded = yaml.safe_load(text) if isinstance(text, str) else None
            except yaml.YAMLError:
                loaded = None
            return loaded if isinstance(loaded, dict) else {}
    return {}

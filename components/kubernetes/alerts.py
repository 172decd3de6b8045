"""Alerting rules Sahab adds on top of kube-prometheus-stack's defaults: GPU health and node health.

Pure data for a PrometheusRule's `spec.groups`. GPU rules read the DCGM exporter's metrics (the set in
`gpu_config.DCGM_METRICS`) and kube-state-metrics; node rules read node-exporter and kube-state-metrics.
"""

from __future__ import annotations

# XID 79: "GPU has fallen off the bus"; 48: double-bit ECC error; 94/95: contained/uncontained ECC error.
XID_FELL_OFF_BUS = 79
GPU_TEMPERATURE_LIMIT_C = 85


def _rule(alert: str, expr: str, for_: str, severity: str, summary: str, description: str) -> dict:
    return {"alert": alert, "expr": expr, "for": for_, "labels": {"severity": severity},
            "annotations": {"summary": summary, "description": description}}


def gpu_rules(low_utilisation_percent: int) -> list[dict]:
    if not 1 <= low_utilisation_percent <= 100:
        raise ValueError("low_utilisation_percent must be between 1 and 100")
    return [
        _rule("GpuFellOffTheBus", f"DCGM_FI_DEV_XID_ERRORS == {XID_FELL_OFF_BUS}", "0m", "critical",
              "GPU fell off the bus",
              "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} reported XID 79 (fallen off the bus); "
              "drain the node and reset or replace the GPU."),
        _rule("GpuXidError", f"DCGM_FI_DEV_XID_ERRORS > 0 and DCGM_FI_DEV_XID_ERRORS != {XID_FELL_OFF_BUS}",
              "0m", "warning", "GPU XID error",
              "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} reported XID {{ $value }}."),
        _rule("GpuEccDoubleBitErrors", "increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[10m]) > 0", "0m", "critical",
              "Uncorrectable (double-bit) ECC errors",
              "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} had uncorrectable ECC errors; results on it "
              "may be wrong. Drain the node."),
        _rule("GpuEccSingleBitErrorsHigh", "increase(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL[1h]) > 100", "0m", "warning",
              "Many correctable (single-bit) ECC errors",
              "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} corrected over 100 ECC errors in an hour."),
        _rule("GpuRowRemapFailure", "DCGM_FI_DEV_ROW_REMAP_FAILURE > 0", "0m", "critical",
              "GPU memory row remapping failed",
              "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} could not remap a faulty memory row; replace it."),
        _rule("GpuTemperatureHigh", f"DCGM_FI_DEV_GPU_TEMP > {GPU_TEMPERATURE_LIMIT_C}", "5m", "warning",
              "GPU running hot",
              f"GPU {{{{ $labels.gpu }}}} on {{{{ $labels.Hostname }}}} is above {GPU_TEMPERATURE_LIMIT_C} C "
              "({{ $value }} C) for 5 minutes; check cooling."),
        # A GPU the device plugin marked unhealthy (e.g. fallen off the bus) leaves allocatable below capacity.
        _rule("GpuUnhealthy",
              'kube_node_status_capacity{resource="nvidia_com_gpu"} '
              '- kube_node_status_allocatable{resource="nvidia_com_gpu"} > 0',
              "10m", "critical", "GPU unavailable on a node",
              "{{ $value }} GPU(s) on {{ $labels.node }} are no longer allocatable."),
        _rule("GpuAllocatedButIdle",
              f'avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL{{pod!=""}}) < {low_utilisation_percent}',
              "30m", "info", "Allocated GPUs are barely used",
              f"Pod {{{{ $labels.namespace }}}}/{{{{ $labels.pod }}}} holds GPUs averaging under "
              f"{low_utilisation_percent}% utilisation for 30 minutes; free them or fix the input pipeline."),
    ]


def node_rules() -> list[dict]:
    return [
        _rule("NodeNotReady", 'kube_node_status_condition{condition="Ready",status="true"} == 0', "5m", "critical",
              "Node not ready", "{{ $labels.node }} has not been Ready for 5 minutes."),
        _rule("NodeMemoryPressure", 'kube_node_status_condition{condition="MemoryPressure",status="true"} == 1',
              "5m", "warning", "Node under memory pressure", "{{ $labels.node }} reports MemoryPressure."),
        _rule("NodeDiskPressure", 'kube_node_status_condition{condition="DiskPressure",status="true"} == 1',
              "5m", "warning", "Node under disk pressure", "{{ $labels.node }} reports DiskPressure."),
        _rule("NodeFilesystemAlmostFull",
              'node_filesystem_avail_bytes{fstype!~"tmpfs|overlay"} / node_filesystem_size_bytes'
              '{fstype!~"tmpfs|overlay"} < 0.10',
              "15m", "warning", "Filesystem almost full",
              "{{ $labels.mountpoint }} on {{ $labels.instance }} has under 10% space left."),
        _rule("NodeHighCpuLoad",
              '1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[5m])) > 0.95',
              "30m", "info", "Node CPU saturated",
              "{{ $labels.instance }} has been above 95% CPU for 30 minutes (data loading may starve GPUs)."),
    ]


def rule_groups(low_utilisation_percent: int, gpus: bool) -> list[dict]:
    groups = [{"name": "sahab-nodes", "rules": node_rules()}]
    if gpus:
        groups.insert(0, {"name": "sahab-gpus", "rules": gpu_rules(low_utilisation_percent)})
    return groups

"""Grafana dashboards as data: Grafana's dashboard JSON model, built from a short list of panels.

kube-prometheus-stack's Grafana sidecar loads every ConfigMap labelled `grafana_dashboard: "1"`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

DASHBOARD_LABEL = "grafana_dashboard"
DATASOURCE = {"type": "prometheus", "uid": "prometheus"}  # kube-prometheus-stack's default datasource uid


@dataclass(frozen=True)
class Panel:
    title: str
    expr: str
    legend: str
    unit: str = "short"


GPU_PANELS = (
    Panel("GPU utilisation", "DCGM_FI_DEV_GPU_UTIL", "{{Hostname}} gpu {{gpu}}", "percent"),
    Panel("Tensor core activity", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "{{Hostname}} gpu {{gpu}}", "percentunit"),
    Panel("Framebuffer memory used", "DCGM_FI_DEV_FB_USED * 1024 * 1024", "{{Hostname}} gpu {{gpu}}", "bytes"),
    Panel("GPU temperature", "DCGM_FI_DEV_GPU_TEMP", "{{Hostname}} gpu {{gpu}}", "celsius"),
    Panel("Power draw", "DCGM_FI_DEV_POWER_USAGE", "{{Hostname}} gpu {{gpu}}", "watt"),
    Panel("XID errors (last code)", "DCGM_FI_DEV_XID_ERRORS", "{{Hostname}} gpu {{gpu}}"),
    Panel("Uncorrectable ECC errors (10m)", "increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[10m])", "{{Hostname}} gpu {{gpu}}"),
    Panel("GPU utilisation by pod", 'avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL{pod!=""})',
          "{{namespace}}/{{pod}}", "percent"),
)

TEAM_PANELS = (
    Panel("GPUs requested vs quota", 'kube_resourcequota{resource="requests.nvidia.com/gpu"}',
          "{{namespace}} {{type}}"),
    Panel("CPU requested vs quota", 'kube_resourcequota{resource="requests.cpu"}', "{{namespace}} {{type}}"),
    Panel("Memory requested vs quota", 'kube_resourcequota{resource="requests.memory"}', "{{namespace}} {{type}}",
          "bytes"),
    Panel("Pods by priority class", "count by (priority_class) (kube_pod_info)", "{{priority_class}}"),
    Panel("Allocatable GPUs per node", 'kube_node_status_allocatable{resource="nvidia_com_gpu"}', "{{node}}"),
)


def dashboard(uid: str, title: str, panels: tuple[Panel, ...]) -> dict:
    """A dashboard of time-series panels, two per row."""
    body = []
    for i, panel in enumerate(panels):
        body.append({
            "id": i + 1, "type": "timeseries", "title": panel.title, "datasource": DATASOURCE,
            "gridPos": {"h": 8, "w": 12, "x": 12 * (i % 2), "y": 8 * (i // 2)},
            "fieldConfig": {"defaults": {"unit": panel.unit}, "overrides": []},
            "targets": [{"refId": "A", "datasource": DATASOURCE, "expr": panel.expr,
                         "legendFormat": panel.legend}],
        })
    return {"uid": uid, "title": title, "tags": ["sahab"], "timezone": "browser", "schemaVersion": 39,
            "editable": False, "refresh": "30s", "time": {"from": "now-6h", "to": "now"}, "panels": body}


def dashboards(gpus: bool) -> dict[str, str]:
    """File name -> dashboard JSON, for the ConfigMaps."""
    boards = {"sahab-teams.json": dashboard("sahab-teams", "Sahab / Teams and quotas", TEAM_PANELS)}
    if gpus:
        boards["sahab-gpus.json"] = dashboard("sahab-gpus", "Sahab / GPUs", GPU_PANELS)
    return {name: json.dumps(board, indent=1, sort_keys=True) for name, board in boards.items()}

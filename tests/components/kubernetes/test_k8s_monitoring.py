"""ClusterMonitoring under mocks: encrypted Prometheus volumes, GPU scraping, alerts and dashboards."""

import json

from sahab.components.fleet_config import Monitoring
from sahab.components.kubernetes import alerts
from sahab.components.kubernetes.monitoring import ClusterMonitoring, ClusterMonitoringArgs

from tests.components.kubernetes.harness import of_type, one, with_provider

RELEASE = "kubernetes:helm.sh/v3:Release"
RULE = "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
SM = "kubernetes:monitoring.coreos.com/v1:ServiceMonitor"


def build(gpu_namespace="gpu-operator", scrape_control_plane=False, **settings):
    args = ClusterMonitoringArgs(settings=Monitoring(**settings), storage_class="sahab-encrypted",
                                 gpu_namespace=gpu_namespace, scrape_control_plane=scrape_control_plane)
    return with_provider(lambda o: ClusterMonitoring("mon", args, opts=o))


def test_prometheus_keeps_its_data_on_the_encrypted_class_for_the_configured_time():
    release = one(build(retention="30d", storage_size_gb=200), RELEASE).inputs
    assert (release["chart"], release["version"]) == ("kube-prometheus-stack", "88.5.3")
    assert release["repositoryOpts"]["repo"] == "https://prometheus-community.github.io/helm-charts"
    spec = release["values"]["prometheus"]["prometheusSpec"]
    assert spec["retention"] == "30d"
    claim = spec["storageSpec"]["volumeClaimTemplate"]["spec"]
    assert claim["storageClassName"] == "sahab-encrypted"
    assert claim["resources"]["requests"]["storage"] == "200Gi"
    # Sahab's own ServiceMonitors and rules are selected, not only the chart's.
    assert spec["serviceMonitorSelectorNilUsesHelmValues"] is False
    assert spec["ruleSelectorNilUsesHelmValues"] is False


def test_dcgm_exporter_is_scraped_where_the_gpu_operator_runs():
    sm = one(build(), SM).inputs
    assert sm["metadata"]["namespace"] == "gpu-operator"
    assert sm["spec"]["selector"]["matchLabels"] == {"app": "nvidia-dcgm-exporter"}
    assert sm["spec"]["endpoints"][0]["port"] == "gpu-metrics"


def test_gpu_alerts_cover_xid_ecc_temperature_bus_and_idle_allocations():
    groups = one(build(gpu_low_utilisation_percent=25), RULE).inputs["spec"]["groups"]
    rules = {r["alert"]: r for g in groups for r in g["rules"]}
    for alert in ("GpuXidError", "GpuEccDoubleBitErrors", "GpuTemperatureHigh", "GpuFellOffTheBus",
                  "GpuAllocatedButIdle", "NodeNotReady", "NodeFilesystemAlmostFull"):
        assert alert in rules
    assert "== 79" in rules["GpuFellOffTheBus"]["expr"]
    assert rules["GpuAllocatedButIdle"]["expr"].endswith("< 25")
    assert rules["GpuAllocatedButIdle"]["for"] == "30m"
    assert all(r["labels"]["severity"] in ("critical", "warning", "info") for r in rules.values())


def test_cluster_without_gpus_gets_node_alerts_and_no_gpu_scraping():
    resources = build(gpu_namespace=None)
    assert not of_type(resources, SM)
    groups = one(resources, RULE).inputs["spec"]["groups"]
    assert [g["name"] for g in groups] == ["sahab-nodes"]
    names = [c.inputs["metadata"]["name"] for c in of_type(resources, "kubernetes:core/v1:ConfigMap")]
    assert names == ["sahab-teams-dashboard"]


def test_dashboards_are_configmaps_the_grafana_sidecar_loads():
    resources = build()
    values = one(resources, RELEASE).inputs["values"]
    sidecar = values["grafana"]["sidecar"]["dashboards"]
    boards = of_type(resources, "kubernetes:core/v1:ConfigMap")
    assert len(boards) == 2
    for board in boards:
        assert board.inputs["metadata"]["labels"][sidecar["label"]] == sidecar["labelValue"]
        (body,) = board.inputs["data"].values()
        dashboard = json.loads(body)
        assert dashboard["panels"] and all(p["targets"][0]["expr"] for p in dashboard["panels"])


def test_grafana_admin_password_is_generated_and_secret():
    resources = build()
    grafana = one(resources, RELEASE).inputs["values"]["grafana"]
    assert grafana["admin"]["existingSecret"] == "grafana-admin"
    assert "adminPassword" not in grafana
    secret = one(resources, "kubernetes:core/v1:Secret").inputs
    assert secret["metadata"]["name"] == "grafana-admin"
    assert secret["stringData"] == "[secret]"  # never plaintext in a plan


def test_control_plane_is_scraped_only_when_asked():
    default = one(build(), RELEASE).inputs["values"]
    asked = one(build(scrape_control_plane=True), RELEASE).inputs["values"]
    for component in ("kubeEtcd", "kubeScheduler", "kubeControllerManager", "kubeProxy"):
        assert default[component]["enabled"] is False
        assert asked[component]["enabled"] is True


def test_node_exporter_reaches_tainted_gpu_nodes():
    values = one(build(), RELEASE).inputs["values"]
    assert {"operator": "Exists", "effect": "NoSchedule"} in values["prometheus-node-exporter"]["tolerations"]


def test_only_node_exporter_gets_a_privileged_namespace():
    resources = build()
    levels = {ns.inputs["metadata"]["name"]: ns.inputs["metadata"]["labels"]["pod-security.kubernetes.io/enforce"]
              for ns in of_type(resources, "kubernetes:core/v1:Namespace")}
    assert levels == {"monitoring": "baseline", "node-exporter": "privileged"}
    exporter = one(resources, RELEASE).inputs["values"]["prometheus-node-exporter"]
    assert exporter["namespaceOverride"] == "node-exporter"


def test_idle_threshold_is_checked():
    import pytest

    with pytest.raises(ValueError):
        alerts.gpu_rules(0)

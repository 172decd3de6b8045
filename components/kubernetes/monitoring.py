"""ClusterMonitoring: kube-prometheus-stack, GPU scraping, Sahab's alerts and dashboards.

Prometheus and Alertmanager keep their data on the cluster's encrypted storage class. Prometheus selects
every ServiceMonitor and PrometheusRule in the cluster (not only the chart's), so the DCGM exporter's
ServiceMonitor and Sahab's rules are picked up. Grafana's admin password is generated, kept as a Pulumi
secret and handed to Grafana through a Kubernetes Secret; the chart's well-known default is never used.

Pod Security: the stack's namespace is `baseline` (no host access for Prometheus, Grafana and the
operator); node-exporter, which reads the host (host network, PID namespace, root filesystem), runs alone
in its own `privileged` namespace.

Alertmanager's receivers, routes and inhibit rules come from `monitoring.alerting` (components.kubernetes.
alertmanager); their credentials are secret stack settings copied into one Kubernetes Secret that the operator
mounts into Alertmanager, so the Helm values name files, never secrets.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pulumi_random as random
from sahab.components.artifacts import CATALOG, Images
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import Monitoring, secret_config
from sahab.components.kubernetes import alertmanager, alerts, dashboards
from sahab.components.kubernetes.common import MANAGED_BY, Args, StrInput, system_namespace_labels
from sahab.components.kubernetes.gpu_operator import DCGM_EXPORTER_LABELS, DCGM_METRICS_PORT
from sahab.components.kubernetes.placement import Placement

CHART = "kube-prometheus-stack"
CHART_VERSION = CATALOG["monitoring-chart"].version
CHART_REPOSITORY = CATALOG["monitoring-chart"].upstream
GRAFANA_ADMIN_SECRET = "grafana-admin"
RELEASE = "kube-prometheus-stack"


class ClusterMonitoringArgs(Args):
    scrape_control_plane: bool = False
    """Scrape etcd, the scheduler, the controller manager and kube-proxy. Only where their metrics listen
    beyond localhost: never on EKS/AKS (managed control planes), and on kubeadm clusters only once their
    `bind-address`/`listen-metrics-urls` are opened; otherwise they would only raise TargetDown alerts.
    Default: false."""
    settings: Monitoring = Monitoring()
    """Retention, volume size and the idle-GPU threshold, from the fleet config. Default: the config's defaults."""
    storage_class: StrInput
    """The encrypted StorageClass for Prometheus and Alertmanager volumes."""
    placement: Placement = Placement()
    """Where Prometheus, Alertmanager, Grafana and the operators run. Default: anywhere untainted."""
    gpu_namespace: str | None = None
    """Namespace of the GPU operator (its DCGM exporter is scraped); unset on clusters without GPUs.
    Default: unset."""
    namespace: str = "monitoring"
    """Namespace of the stack, dashboards and rules. Default: monitoring."""
    node_exporter_namespace: str = "node-exporter"
    """Namespace of node-exporter alone (it needs host access). Default: node-exporter."""
    images: Images = Images()
    """Where the chart (pinned, 88.5.3: Prometheus operator v0.93.1) and every image of it and its subcharts come
    from (components.artifacts). Default: their upstream registries."""
    cluster: str | None = None
    """Cluster name, put on every alert as the `cluster` label (notifications say where). Default: unset."""


def _volume(storage_class: StrInput, size: str) -> dict:
    return {"volumeClaimTemplate": {"spec": {"storageClassName": storage_class, "accessModes": ["ReadWriteOnce"],
                                             "resources": {"requests": {"storage": size}}}}}


def image_values(images: Images) -> dict:
    """Every image the chart and its subcharts pull (and the operator's defaults for what it runs), from the
    fleet's registry, each joined as its template joins it (components.image_refs), as a values tree merged under
    the chart's other values."""
    v = images.values
    return {
        "prometheusOperator": {"image": v("prometheus-operator"),
                               "prometheusConfigReloader": {"image": v("prometheus-config-reloader")},
                               "thanosImage": v("thanos"),
                               "admissionWebhooks": {"patch": {"image": v("webhook-certgen")}}},
        "prometheus": {"prometheusSpec": {"image": v("prometheus")}},
        "alertmanager": {"alertmanagerSpec": {"image": v("alertmanager")}},
        "kube-state-metrics": {"image": v("kube-state-metrics")},
        "prometheus-node-exporter": {"image": v("node-exporter")},
        "grafana": {"image": v("grafana"),
                    "sidecar": {"image": v("grafana-sidecar")},
                    "initChownData": {"image": v("busybox")},
                    "downloadDashboardsImage": v("grafana-curl"),
                    # The chart's test pod would pull one more image; `helm test` is not how Sahab checks.
                    "testFramework": {"enabled": False}},
    }


def _merge(base: dict, extra: dict) -> dict:
    merged = dict(base)
    for key, value in extra.items():
        merged[key] = _merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) \
            else value
    return merged


def helm_values(args: ClusterMonitoringArgs, storage_class: StrInput) -> dict:
    receiver_secrets = alertmanager.secret_files(args.settings.alerting)
    control_plane = args.scrape_control_plane
    place = {"nodeSelector": dict(args.placement.node_selector), "tolerations": list(args.placement.tolerations)}
    return _merge(image_values(args.images), {
        "prometheusOperator": {**place, "admissionWebhooks": {"patch": place}},
        "kube-state-metrics": place,
        "prometheus": {"prometheusSpec": {
            **place,
            "retention": args.settings.retention,
            "storageSpec": _volume(storage_class, f"{args.settings.storage_size_gb}Gi"),
            # Select every ServiceMonitor/PodMonitor/PrometheusRule, not only those labelled for this release.
            "serviceMonitorSelectorNilUsesHelmValues": False,
            "podMonitorSelectorNilUsesHelmValues": False,
            "ruleSelectorNilUsesHelmValues": False,
            **({"externalLabels": {"cluster": args.cluster}} if args.cluster else {}),
        }},
        "alertmanager": {
            "alertmanagerSpec": {**place, "storage": _volume(storage_class, "10Gi"),
                                 **({"secrets": [alertmanager.SECRET_NAME]} if receiver_secrets else {})},
            "config": alertmanager.alertmanager_config(args.settings.alerting),
        },
        "grafana": {
            **place,
            "admin": {"existingSecret": GRAFANA_ADMIN_SECRET, "userKey": "admin-user", "passwordKey": "admin-password"},
            "sidecar": {"dashboards": {"enabled": True, "label": dashboards.DASHBOARD_LABEL, "labelValue": "1",
                                       "searchNamespace": "ALL"}},
        },
        # Node metrics from every node, GPU nodes included (they carry the GPU taint).
        "prometheus-node-exporter": {"namespaceOverride": args.node_exporter_namespace,
                                     "tolerations": [{"operator": "Exists", "effect": "NoSchedule"}]},
        "kubeEtcd": {"enabled": control_plane},
        "kubeControllerManager": {"enabled": control_plane},
        "kubeScheduler": {"enabled": control_plane},
        "kubeProxy": {"enabled": control_plane},
    })


def dcgm_service_monitor_spec() -> dict:
    return {"selector": {"matchLabels": DCGM_EXPORTER_LABELS},
            "endpoints": [{"port": DCGM_METRICS_PORT, "path": "/metrics", "interval": "15s", "scrapeTimeout": "10s",
                           # Name the node the GPU is in, so GPU alerts join node alerts.
                           "relabelings": [{"sourceLabels": ["__meta_kubernetes_pod_node_name"],
                                            "targetLabel": "node", "action": "replace"}]}]}


def _secret_setting(file: alertmanager.SecretFile) -> pulumi.Output[str]:
    value = secret_config(file.setting)
    if value is None:
        raise ConfigError(file.path, f"names the secret setting sahab:{file.setting}, which the stack does not set; "
                                     f"run `pulumi config set --secret {file.setting} <value>`")
    return pulumi.Output.secret(value)


class ClusterMonitoring(pulumi.ComponentResource):
    """kube-prometheus-stack on encrypted volumes, DCGM ServiceMonitor, GPU/node alerts, Grafana dashboards."""

    namespace: pulumi.Output[str]

    def __init__(self, name: str, args: ClusterMonitoringArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:ClusterMonitoring", name, None, opts)
        ns = k8s.core.v1.Namespace(f"{name}-namespace", metadata={
            "name": args.namespace, "labels": system_namespace_labels(args.namespace, "baseline")},
            opts=pulumi.ResourceOptions(parent=self))
        host_ns = k8s.core.v1.Namespace(f"{name}-node-exporter-namespace", metadata={
            "name": args.node_exporter_namespace,
            "labels": system_namespace_labels(args.node_exporter_namespace, "privileged")},
            opts=pulumi.ResourceOptions(parent=self))
        in_ns = pulumi.ResourceOptions(parent=self, depends_on=[ns])
        meta = {"namespace": args.namespace, "labels": MANAGED_BY}

        password = random.RandomPassword(f"{name}-grafana-password", length=32, special=False,
                                         opts=pulumi.ResourceOptions(parent=self))
        admin = k8s.core.v1.Secret(f"{name}-grafana-admin", metadata={"name": GRAFANA_ADMIN_SECRET, **meta},
                                   type="Opaque",
                                   string_data={"admin-user": "admin", "admin-password": password.result},
                                   opts=in_ns)
        self.grafana_admin_password = password.result
        depends = [ns, host_ns, admin]
        files = alertmanager.secret_files(args.settings.alerting)
        if files:
            depends.append(k8s.core.v1.Secret(
                f"{name}-alertmanager-receivers", metadata={"name": alertmanager.SECRET_NAME, **meta}, type="Opaque",
                string_data={f.file: _secret_setting(f) for f in files}, opts=in_ns))

        # The class stays a leaf of the values: a preview shows every other value (retention, selectors, images).
        values = helm_values(args, args.storage_class)
        chart, version, repository = args.images.chart("monitoring")
        release = k8s.helm.v3.Release(
            f"{name}-release", name=RELEASE, chart=chart, version=version,
            repository_opts=repository, namespace=args.namespace, values=values, atomic=True,
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends))
        # The custom resources need the chart's CRDs.
        after_chart = pulumi.ResourceOptions(parent=self, depends_on=[release])

        gpus = args.gpu_namespace is not None
        if gpus:
            k8s.apiextensions.CustomResource(
                f"{name}-dcgm-servicemonitor", api_version="monitoring.coreos.com/v1", kind="ServiceMonitor",
                metadata={"name": "nvidia-dcgm-exporter", "namespace": args.gpu_namespace, "labels": MANAGED_BY},
                spec=dcgm_service_monitor_spec(), opts=after_chart)
        k8s.apiextensions.CustomResource(
            f"{name}-alerts", api_version="monitoring.coreos.com/v1", kind="PrometheusRule",
            metadata={"name": "sahab-alerts", **meta},
            spec={"groups": alerts.rule_groups(args.settings.gpu_low_utilisation_percent, gpus)}, opts=after_chart)
        for file_name, board in dashboards.dashboards(gpus).items():
            board_name = file_name.removesuffix(".json")
            k8s.core.v1.ConfigMap(f"{name}-dashboard-{board_name}", metadata={
                "name": f"{board_name}-dashboard", "namespace": args.namespace,
                "labels": {dashboards.DASHBOARD_LABEL: "1", **MANAGED_BY}}, data={file_name: board}, opts=in_ns)

        self.namespace = ns.metadata.name
        self.register_outputs({"namespace": self.namespace})

"""GpuOperator: NVIDIA GPU enablement for one cluster with GPU pools.

One Helm release of NVIDIA's GPU operator brings node feature discovery, GPU feature discovery, the device
plugin, DCGM exporter and the MIG manager. Its agents are DaemonSets that select nodes by labels such as
`nvidia.com/gpu.deploy.device-plugin=true`, which the operator puts only on nodes that carry NVIDIA GPUs
(labelled `nvidia.com/gpu.present=true` by their pool, or found by NFD's PCI vendor 10de label); they
tolerate the GPU taint. The driver and the container toolkit come from their one owner per kind of cluster
(components.gpu_stack): the AL2023 NVIDIA AMI on EKS, Ansible on-prem, and on AKS the node image or, with
`gpu_driver: operator`, this operator.

The namespace is `privileged`: these agents load kernel modules and mount host paths. That is confined to
this one namespace; tenants' namespaces stay `restricted`.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pydantic import field_validator, model_validator
from sahab.components import gpu_stack
from sahab.components.artifacts import CATALOG, Images
from sahab.components.fleet_config import NodePool
from sahab.components.kinds import KindName
from sahab.components.kubernetes import gpu_config
from sahab.components.kubernetes.common import MANAGED_BY, Args, system_namespace_labels
from sahab.components.kubernetes.placement import Placement
from sahab.components.node_os import gpu_node_os_tag

CHART = "gpu-operator"
CHART_VERSION = CATALOG["gpu-operator-chart"].version
CHART_REPOSITORY = CATALOG["gpu-operator-chart"].upstream
DEVICE_PLUGIN_CONFIG = "sahab-device-plugin-config"
DCGM_METRICS_CONFIG = "sahab-dcgm-metrics"
DCGM_EXPORTER_LABELS = {"app": "nvidia-dcgm-exporter"}
DCGM_METRICS_PORT = "gpu-metrics"
CONTROL_PLANE_TOLERATION = {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists",
                            "effect": "NoSchedule"}


class GpuOperatorArgs(Args):
    cluster_kind: KindName
    """Where the cluster runs; on-prem nodes bring their own drivers and toolkit."""
    pools: tuple[NodePool, ...]
    """The cluster's GPU pools (at least one): their taints, drivers and MIG strategies shape the values."""
    placement: Placement = Placement()
    """Where the operator's controllers (not its per-node agents) run. Default: anywhere untainted."""
    namespace: str = "gpu-operator"
    """Namespace of the operator and its agents. Default: gpu-operator."""
    images: Images = Images()
    """Where the chart (pinned, v26.7.0) and every image it runs come from (components.artifacts).
    Default: upstream (NGC, registry.k8s.io)."""
    kubernetes_version: str = "1.34"
    """The cluster's minor version: with the cluster kind it says which OS the GPU nodes run, and so which driver
    image the operator pulls where it installs the driver (components.node_os). Default: 1.34."""

    @field_validator("pools")
    @classmethod
    def _gpu_pools(cls, pools: tuple[NodePool, ...]) -> tuple[NodePool, ...]:
        if not pools:
            raise ValueError("a GPU operator needs at least one GPU pool")
        cpu = [p.name for p in pools if not p.is_gpu]
        if cpu:
            raise ValueError(f"not GPU pools: {', '.join(cpu)}")
        return pools

    @model_validator(mode="after")
    def _one_owner(self):
        # One operator installs drivers on all of a cluster's GPU nodes or on none of them, and never where
        # the node image or host has them (components.gpu_stack).
        if gpu_stack.disagreeing(self.cluster_kind, [p.gpu_driver for p in self.pools]):
            drivers = sorted({gpu_stack.resolve(self.cluster_kind, p.gpu_driver) for p in self.pools})
            raise ValueError(f"the GPU pools of one cluster must agree on gpu_driver (got {', '.join(drivers)})")
        return self

    @property
    def driver_os_tag(self) -> str | None:
        """The OS suffix of the driver image the operator pulls; None where it installs no driver."""
        return gpu_node_os_tag(self.cluster_kind, self.kubernetes_version) if self.operator_installs_driver else None

    @property
    def operator_installs_driver(self) -> bool:
        """Only where the operator owns the driver and the toolkit: AKS pools that skip the node image's."""
        return gpu_stack.owners(self.cluster_kind, self.pools[0].gpu_driver).operator_installs


# Values key -> catalog image, for the operator's `{repository, image, version}` maps. The validator runs from the
# operator's own image (values.yaml at v26.7.0: validator.repository nvcr.io/nvidia, image gpu-operator).
OPERATOR_IMAGES = {"operator": "gpu-operator", "validator": "gpu-operator", "toolkit": "container-toolkit",
                   "devicePlugin": "device-plugin", "gfd": "device-plugin", "dcgmExporter": "dcgm-exporter",
                   "migManager": "mig-manager"}


def driver_values(images: Images, os_tag: str | None) -> dict:
    """The driver's `{repository, image, version}`: the operator appends `-<node OS>` to the version itself, so
    only a recorded digest (of the `<version>-<os>` image the nodes pull) needs the whole tag spelt out."""
    driver = CATALOG["nvidia-driver"]
    if os_tag is None:  # the operator installs no driver here; the values still name the in-country image
        return images.values(driver)
    return images.values(driver, f"{driver.version}-{os_tag}")


def image_values(images: Images, os_tag: str | None = None) -> dict:
    """Every image the chart can pull, from the fleet's registry, so the policy pack sees each one."""
    values = {key: images.values(name) for key, name in OPERATOR_IMAGES.items()}
    values["driver"] = driver_values(images, os_tag)
    # The driver DaemonSet's init container (it drains the node before a driver change).
    values["driver"]["manager"] = images.values("driver-manager")
    values["node-feature-discovery"] = {"image": images.values("node-feature-discovery")}
    return values


def helm_values(args: GpuOperatorArgs) -> dict:
    """The chart values that matter; everything else keeps the chart's defaults."""
    tolerations = gpu_config.gpu_pool_tolerations(args.pools)
    installs_driver = args.operator_installs_driver
    controllers = {"nodeSelector": dict(args.placement.node_selector),
                   "tolerations": [CONTROL_PLANE_TOLERATION, *args.placement.tolerations]}
    images = image_values(args.images, args.driver_os_tag)
    values = {
        # Namespace labels are ours (privileged here only), not the chart's.
        "psa": {"enabled": False},
        "operator": {**controllers, "nodeSelector": {"kubernetes.io/os": "linux", **args.placement.node_selector}},
        "nfd": {"enabled": True},
        "node-feature-discovery": {
            "master": controllers, "gc": controllers,
            # NFD's worker labels every node (that is how GPU nodes are found), control-plane nodes included.
            "worker": {"tolerations": [*tolerations, CONTROL_PLANE_TOLERATION]},
        },
        "daemonsets": {"tolerations": tolerations, "priorityClassName": "system-node-critical"},
        "driver": {"enabled": installs_driver},
        "toolkit": {"enabled": installs_driver},
        "mig": {"strategy": gpu_config.cluster_mig_strategy(args.pools)},
        # Partitions GPUs only on MIG-capable nodes labelled `nvidia.com/mig.config` (a pool label).
        "migManager": {"enabled": True},
        "devicePlugin": {"enabled": True,
                         "config": {"name": DEVICE_PLUGIN_CONFIG, "default": gpu_config.DEFAULT_CONFIG}},
        "gfd": {"enabled": True},
        # The monitoring component owns the ServiceMonitor, so it exists only where Prometheus does.
        "dcgmExporter": {"enabled": True, "config": {"name": DCGM_METRICS_CONFIG},
                         "serviceMonitor": {"enabled": False}},
    }
    for key, image in images.items():
        values[key] = {**values.get(key, {}), **image}
    return values


class GpuOperator(pulumi.ComponentResource):
    """NVIDIA GPU operator with per-pool device plugin configurations and Sahab's DCGM metric set."""

    namespace: pulumi.Output[str]

    def __init__(self, name: str, args: GpuOperatorArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:GpuOperator", name, None, opts)
        chart, version, repository = args.images.chart("gpu-operator")
        child = pulumi.ResourceOptions(parent=self)

        ns = k8s.core.v1.Namespace(f"{name}-namespace", metadata={
            "name": args.namespace, "labels": system_namespace_labels(args.namespace, "privileged")}, opts=child)
        in_ns = pulumi.ResourceOptions(parent=self, depends_on=[ns])
        plugin_config = k8s.core.v1.ConfigMap(f"{name}-device-plugin-config", metadata={
            "name": DEVICE_PLUGIN_CONFIG, "namespace": args.namespace, "labels": MANAGED_BY},
            data=gpu_config.device_plugin_configs(), opts=in_ns)
        metrics_config = k8s.core.v1.ConfigMap(f"{name}-dcgm-metrics", metadata={
            "name": DCGM_METRICS_CONFIG, "namespace": args.namespace, "labels": MANAGED_BY},
            data={"dcgm-metrics.csv": gpu_config.dcgm_metrics_csv()}, opts=in_ns)
        self.release = k8s.helm.v3.Release(
            f"{name}-release",
            name="gpu-operator",
            chart=chart,
            version=version,
            repository_opts=repository,
            namespace=args.namespace,
            values=helm_values(args),
            atomic=True,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[ns, plugin_config, metrics_config]))

        self.namespace_name = args.namespace
        self.namespace = ns.metadata.name
        self.register_outputs({"namespace": self.namespace})


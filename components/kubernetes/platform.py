"""Platform: everything Sahab installs inside one Kubernetes cluster, the same on EKS, AKS and on-prem.

Encrypted storage classes, GPU enablement where the cluster has GPU pools, the EFA device plugin on EKS,
monitoring, training tiers,
one fenced namespace per team, Kueue with a queue per team over the cluster's pools, and (with a validator
image) the node validator in `sahab-system`, the only thing that may label nodes. The caller passes
the cluster's Kubernetes provider in `opts` (`ResourceOptions(provider=...)`); this component never creates a
provider.
"""

from __future__ import annotations

import pulumi
from pydantic import field_validator
from sahab.components import validation  # the fleet schema's rules (it refuses a fleet file's teams first)
from sahab.components.addons import Target, wanted
from sahab.components.artifacts import Images
from sahab.components.fleet_config import Monitoring, NodePool, Team
from sahab.components.kinds import KindName
from sahab.components.kinds import get as kind_spec
from sahab.components.kubernetes.common import Args, StrInput
from sahab.components.kubernetes.efa_device_plugin import EfaDevicePlugin, EfaDevicePluginArgs
from sahab.components.kubernetes.gpu_operator import GpuOperator, GpuOperatorArgs
from sahab.components.kubernetes.kueue import CLOUD_PODS_READY_TIMEOUT, Kueue, KueueArgs
from sahab.components.kubernetes.monitoring import ClusterMonitoring, ClusterMonitoringArgs
from sahab.components.kubernetes.node_validator import NodeValidator, NodeValidatorArgs
from sahab.components.kubernetes.placement import system_placement
from sahab.components.kubernetes.platform_fences import FenceArgs, PlatformFences
from sahab.components.kubernetes.priority_classes import TrainingPriorities
from sahab.components.kubernetes.storage import EncryptedStorage, EncryptedStorageArgs
from sahab.components.kubernetes.team_namespace import TeamNamespace, TeamNamespaceArgs


class PlatformArgs(Args):
    cluster_kind: KindName
    """Where the cluster runs (components.kinds)."""
    pools: tuple[NodePool, ...] = ()
    """The cluster's node pools; GPU pools switch GPU enablement on. Default: none."""
    encryption_key: StrInput | None = None
    """EKS: KMS key ARN for EBS volumes; AKS: Disk Encryption Set id; on-prem: unused (LUKS volumes).
    Default: unset (the cloud's own key)."""
    monitoring: Monitoring = Monitoring()
    """Monitoring settings from the fleet config (enabled, retention, storage). Default: the config defaults."""
    teams: tuple[Team, ...] = ()
    """Tenants, one namespace each. Default: none."""
    cluster_name: str | None = None
    """The cluster's name, on every alert as the `cluster` label. Default: unset."""
    kubernetes_version: str = "1.34"
    """The cluster's Kubernetes minor version (it decides the GPU nodes' OS on AKS, and so the driver image the
    GPU operator pulls there). Default: 1.34."""
    images: Images = Images()
    """Where every chart and image of the platform comes from: the cluster's in-country registry
    (components.artifacts). Default: their upstream registries."""
    object_storage: tuple[tuple[str, ...], int] = ((), 443)
    """Private blocks holding the fleet's storage endpoints, and the port team pods may reach them on
    (`components.egress.storage_destinations`). Default: none (see TeamNamespaceArgs)."""
    fences: FenceArgs | None = None
    """The cluster's network facts for the fences of the platform's own namespaces (default-deny plus the flows
    their components need: components/kubernetes/platform_fences.py). Default: unset (no fences)."""
    validator_image: str | None = None
    """Image whose `sahab node-validate` judges every pool's nodes (the workload image); training requires
    its verdict. Default: unset (no node validation)."""

    @field_validator("teams")
    @classmethod
    def _unique_teams(cls, teams: tuple[Team, ...]) -> tuple[Team, ...]:
        names = [t.name for t in teams]
        duplicates = sorted({names[i] for i in validation.repeated(names)})
        if duplicates:
            raise ValueError(f"duplicate team names: {', '.join(duplicates)}")
        taken = sorted(n for n in names if validation.team_namespace(n))
        if taken:
            raise ValueError(f"team names that are system namespaces: {', '.join(taken)}; pick other names")
        return teams

    @property
    def gpu_pools(self) -> tuple[NodePool, ...]:
        return tuple(p for p in self.pools if p.is_gpu)


class Platform(pulumi.ComponentResource):
    """The Sahab platform inside one cluster."""

    def __init__(self, name: str, args: PlatformArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:Platform", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        placement = system_placement(args.pools)
        spec = kind_spec(args.cluster_kind)
        # Which add-ons the cluster gets is the add-on registry's answer (components.addons), as for the registry.
        target = Target(spec, args.pools, args.monitoring.enabled)

        self.storage = EncryptedStorage(f"{name}-storage", EncryptedStorageArgs(
            cluster_kind=args.cluster_kind, encryption_key=args.encryption_key, placement=placement,
            images=args.images), opts=child)

        self.gpu: GpuOperator | None = None
        if wanted("gpu-operator", target):
            self.gpu = GpuOperator(f"{name}-gpu", GpuOperatorArgs(
                cluster_kind=args.cluster_kind, pools=args.gpu_pools, placement=placement, images=args.images,
                kubernetes_version=args.kubernetes_version),
                opts=child)

        # EKS: EFA pools may come later (a burst stack's); the plugin runs on none of the nodes until they do.
        self.efa = EfaDevicePlugin(f"{name}-efa", EfaDevicePluginArgs(images=args.images), opts=child) \
            if wanted("efa-device-plugin", target) else None

        self.monitoring: ClusterMonitoring | None = None
        if wanted("monitoring", target):
            self.monitoring = ClusterMonitoring(f"{name}-monitoring", ClusterMonitoringArgs(
                settings=args.monitoring, storage_class=self.storage.class_name, placement=placement,
                gpu_namespace=self.gpu.namespace_name if self.gpu else None, cluster=args.cluster_name,
                images=args.images),
                opts=pulumi.ResourceOptions(parent=self, depends_on=[self.storage] + ([self.gpu] if self.gpu else [])))

        self.priorities = TrainingPriorities(f"{name}-priorities", opts=child)
        self.teams = {
            team.name: TeamNamespace(f"{name}-team-{team.name}", TeamNamespaceArgs(
                team=team, object_storage_cidrs=args.object_storage[0],
                object_storage_port=args.object_storage[1]), opts=child)
            for team in args.teams
        }
        # Queues after the namespaces their LocalQueues live in.
        cold_nodes = {"pods_ready_timeout": CLOUD_PODS_READY_TIMEOUT} if spec.cold_nodes else {}
        self.kueue = Kueue(f"{name}-kueue", KueueArgs(pools=args.pools, teams=args.teams, placement=placement,
                                                      images=args.images, **cold_nodes),
                           opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.teams.values())))

        self.validator: NodeValidator | None = None
        if args.validator_image:
            self.validator = NodeValidator(f"{name}-node-validator", NodeValidatorArgs(
                image=args.validator_image, pools=args.pools), opts=child)

        self.fences: PlatformFences | None = None
        if args.fences is not None:
            # After the namespaces they live in exist (kube-system always does).
            owners = [c for c in (self.kueue, self.monitoring, self.validator) if c is not None]
            self.fences = PlatformFences(f"{name}-fences", args.fences,
                                         opts=pulumi.ResourceOptions(parent=self, depends_on=owners))

        self.storage_class = self.storage.class_name
        self.register_outputs({
            "storageClass": self.storage_class,
            "gpuOperatorNamespace": self.gpu.namespace if self.gpu else None,
            "monitoringNamespace": self.monitoring.namespace if self.monitoring else None,
            "teamNamespaces": {n: t.namespace for n, t in self.teams.items()},
            "kueueNamespace": self.kueue.namespace,
            "validatorNamespace": self.validator.namespace if self.validator else None,
        })

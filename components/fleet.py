"""Fleet: one stack's whole fleet, composed from the validated config."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import ValidationError

from components.config import ROOT, Cluster, FleetConfig
from components.kubernetes.platform import Platform, PlatformArgs
from sahab.errors import ConfigError


class Fleet(pulumi.ComponentResource):
    """Composes region-pinned providers, clusters, node pools, storage and the Kubernetes platform.

    Each area comes from its own component module; an area whose component is not part of Sahab yet is
    simply absent from the plan."""

    def __init__(self, name: str, config: FleetConfig, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:index:Fleet", name, None, opts)
        self.fleet_name = name
        self.config = config
        self.clusters: dict[str, Any] = self._clusters()
        self.platforms: dict[str, Platform] = self._platforms()
        self.exports: dict[str, pulumi.Input] = {
            "environment": config.environment,
            "allowedRegions": list(config.residency.allowed_regions),
        }
        self.register_outputs(self.exports)

    # ---- clusters ---------------------------------------------------------------------------------------
    def _clusters(self) -> dict[str, Any]:
        """Cluster components by cluster name. Each exposes `.kubeconfig` (a secret Output), `.kind` and
        `.storage_encryption_id` (EKS: the EBS KMS key ARN; AKS: the Disk Encryption Set id; on-prem: None,
        its volumes are LUKS-encrypted by Ansible). The EKS, AKS and on-prem cluster components fill this."""
        return {}

    # ---- the Kubernetes platform ------------------------------------------------------------------------
    def _platforms(self) -> dict[str, Platform]:
        platforms = {}
        for i, cluster in enumerate(self.config.clusters):
            if cluster.stack_reference:
                continue  # the stack that owns the cluster installs its platform
            component = self.clusters.get(cluster.name)
            provider = self._kubernetes_provider(cluster, component)
            try:
                platforms[cluster.name] = self._platform(cluster.name, cluster.kind, provider,
                                                         getattr(component, "storage_encryption_id", None))
            except ValidationError as err:
                # A setting the schema allows alone but not together with the cluster's others.
                message = err.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
                raise ConfigError(f"{ROOT}.clusters[{i}]", f"{cluster.name}: {message}") from None
        return platforms

    def _kubernetes_provider(self, cluster: Cluster, component: Any | None) -> k8s.Provider:
        """One provider per cluster, from the cluster component's kubeconfig. A cluster this program does not
        build (no component) is reached through the operator's kubeconfig context of the same name."""
        opts = pulumi.ResourceOptions(parent=self, depends_on=[component] if component is not None else None)
        if component is not None:
            return k8s.Provider(f"{self.fleet_name}-{cluster.name}-k8s", kubeconfig=component.kubeconfig, opts=opts)
        return k8s.Provider(f"{self.fleet_name}-{cluster.name}-k8s", context=cluster.name, opts=opts)

    def _platform(self, cluster_name: str, kind: str, k8s_provider: k8s.Provider,
                  encryption_id: pulumi.Input[str] | None) -> Platform:
        return Platform(
            f"{self.fleet_name}-{cluster_name}-platform",
            PlatformArgs(cluster_kind=kind, pools=self.config.pools_of(cluster_name), encryption_key=encryption_id,
                         monitoring=self.config.monitoring, teams=self.config.workload.teams),
            opts=pulumi.ResourceOptions(parent=self, providers={"kubernetes": k8s_provider}))

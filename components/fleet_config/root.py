"""FleetConfig: the root of `sahab:fleet`, everything one stack builds, and the lookups components use."""

from __future__ import annotations

from typing import Literal

from sahab.components.fleet_config.clouds import Clouds, Residency
from sahab.components.fleet_config.clusters import Cluster
from sahab.components.fleet_config.monitoring import Monitoring
from sahab.components.fleet_config.pools import NodePool
from sahab.components.fleet_config.sites import Site
from sahab.components.fleet_config.storage import Storage
from sahab.components.fleet_config.types import Name, _Model
from sahab.components.fleet_config.workload import Burst, Workload
from sahab.components.hybrid_config import Deployer
from sahab.components.registry_config import Registries


class FleetConfig(_Model):
    """Everything one stack builds."""

    name: Name = "sahab"
    """Prefix of every resource name. Default: sahab."""
    environment: Literal["dev", "prod", "burst", "smb"]
    """Which kind of stack this is."""
    residency: Residency = Residency()
    """Where data may live. Default: the three UAE regions, sites in the UAE."""
    clouds: Clouds = Clouds()
    """Cloud accounts. Default: none (on-prem only)."""
    sites: tuple[Site, ...] = ()
    """On-prem data centres. Default: none."""
    clusters: tuple[Cluster, ...] = ()
    """Kubernetes clusters. Default: none."""
    node_pools: tuple[NodePool, ...] = ()
    """Node pools across all clusters. Default: none."""
    storage: Storage = Storage()
    """Buckets and keys. Default: no buckets."""
    monitoring: Monitoring = Monitoring()
    """Monitoring on every cluster. Default: on, 15d retention."""
    workload: Workload = Workload()
    """Tenants and the training workload. Default: one team, training off."""
    burst: Burst | None = None
    """Burst stacks: dispatch queued training from an on-prem manager to cloud workers. Default: unset."""
    registries: Registries = Registries()
    """The in-country registry per cluster kind (components.registry_config). Default: none (upstreams)."""
    deployer: Deployer | None = None
    """Where `pulumi up` runs (components.hybrid_config). Default: a machine on the first site with links."""

    # Lookups the components use; validation guarantees the names resolve.
    def cluster(self, name: str) -> Cluster:
        return next(c for c in self.clusters if c.name == name)

    def site(self, name: str) -> Site:
        return next(s for s in self.sites if s.name == name)

    def pools_of(self, cluster: str) -> tuple[NodePool, ...]:
        return tuple(p for p in self.node_pools if p.cluster == cluster)

    def cloud_of(self, cluster: Cluster) -> str:
        return {"eks": "aws", "aks": "azure", "onprem": "onprem"}[cluster.kind]

    def region_of(self, cluster: Cluster) -> str:
        if cluster.kind == "onprem":
            return self.site(cluster.site).emirate if cluster.site else "onprem"
        if cluster.location:
            return cluster.location
        return self.clouds.aws.region if cluster.kind == "eks" else self.clouds.azure.location

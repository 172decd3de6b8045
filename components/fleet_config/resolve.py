"""Derived defaults: what the schema fills in once the rules hold (components.fleet_config.rules): instance types,
GPU drivers and counts, EFA, on-prem pool sizes, the control plane's scheduling, and every cloud pool's zones.
Nothing here refuses a fleet; the rules use the same helpers to say what would be derived."""

from __future__ import annotations

from typing import Any

from sahab.components import accelerators, gpu_stack, offerings
from sahab.components.fleet_config.clusters import Cluster
from sahab.components.fleet_config.pools import AKS_SPOT_TAINT, NodePool
from sahab.components.fleet_config.root import FleetConfig


def defaults(fleet: FleetConfig) -> FleetConfig:
    """The fleet with every cluster's and pool's derived defaults filled in (zones apart: see `zones`)."""
    fleet = fleet.model_copy(update={"clusters": tuple(_cluster(fleet, c) for c in fleet.clusters)})
    return fleet.model_copy(update={"node_pools": tuple(_pool(fleet, p) for p in fleet.node_pools)})


def schedules_on_control_plane(fleet: FleetConfig, cluster: Cluster) -> bool:
    """Whether workloads share an on-prem cluster's control-plane hosts: as set, else on for the smb environment
    when its site has up to 3 hosts."""
    if cluster.schedule_on_control_plane is not None:
        return cluster.schedule_on_control_plane
    return fleet.environment == "smb" and len(fleet.site(cluster.site).hosts) <= 3


def instance_type(fleet: FleetConfig, cluster: Cluster, pool: NodePool) -> str | None:
    """A cloud pool's instance type: its own, else the catalog's choice among what the region sells."""
    cloud = fleet.cloud_of(cluster)
    snap = offerings.snapshot(cloud, fleet.region_of(cluster))
    return pool.instance_type or accelerators.default_instance_type(cloud, pool.accelerator, snap)


def efa_capable(instance_type: str) -> bool:
    """The type has Elastic Fabric Adapter interfaces (EC2's instance data)."""
    facts = offerings.aws_instance(instance_type)
    return bool(facts and facts.efa_interfaces)


def _cluster(fleet: FleetConfig, cluster: Cluster) -> Cluster:
    if cluster.kind != "onprem" or cluster.stack_reference:
        return cluster
    return cluster.model_copy(update={"schedule_on_control_plane": schedules_on_control_plane(fleet, cluster)})


def _pool(fleet: FleetConfig, pool: NodePool) -> NodePool:
    cluster = fleet.cluster(pool.cluster)
    driver = gpu_stack.resolve(cluster.kind, pool.gpu_driver) if pool.is_gpu else pool.gpu_driver
    if cluster.kind == "onprem":
        n = len(pool.hosts)
        return pool.model_copy(update={"min_size": n, "max_size": n, "desired_size": n, "gpu_driver": driver,
                                       "gpus_per_node": _host_gpus(fleet, cluster, pool), "efa": False})
    cloud, chosen = fleet.cloud_of(cluster), instance_type(fleet, cluster, pool)
    # EFA on an EKS pool: on by default where the type has EFA interfaces and the pool can span nodes.
    efa = False if cluster.kind != "eks" else (efa_capable(chosen) and pool.max_size > 1 if pool.efa is None
                                               else pool.efa)
    gpus = pool.gpus_per_node or (accelerators.gpus_per_instance(cloud, chosen) if pool.is_gpu else None)
    update: dict[str, Any] = {"instance_type": chosen, "gpus_per_node": gpus, "gpu_driver": driver, "efa": efa}
    if cluster.kind == "aks" and pool.spot and AKS_SPOT_TAINT not in pool.extra_taints:
        # AKS taints every spot node itself: stated here, every pod and flavor that must land there tolerates it.
        update["extra_taints"] = (*pool.extra_taints, AKS_SPOT_TAINT)
    return pool.model_copy(update=update)


def _host_gpus(fleet: FleetConfig, cluster: Cluster, pool: NodePool) -> int | None:
    """An on-prem GPU pool's GPUs per node: what its hosts declare (the rules made them alike)."""
    if not pool.is_gpu:
        return None
    return next(h.gpus.count for h in fleet.site(cluster.site).hosts if h.name in pool.hosts)


def zones(fleet: FleetConfig) -> FleetConfig:
    """Every cloud pool's zones: where it is placed, resolved once so the plan, readiness and the network agree.
    An EKS VPC gets subnets in `az_count` zones chosen to serve its region's pools; each EKS pool uses those of
    them that sell its type (one for an EFA pool); a burst pool on another stack's cluster takes every zone that
    sells its type (its node group uses those the owning stack's VPC has)."""
    vpc = {region: vpc_zones(fleet, region) for region in vpc_regions(fleet)}
    placed = []
    for pool in fleet.node_pools:
        cluster = fleet.cluster(pool.cluster)
        if cluster.kind == "onprem":
            placed.append(pool)
            continue
        region = fleet.region_of(cluster)
        if cluster.kind == "aks":
            chosen = _aks_zones(region, pool)
        else:
            chosen = wanted_zones(offerings.snapshot("aws", region), pool, vpc.get(region))
            chosen = chosen[:1] if pool.efa else chosen
        placed.append(pool.model_copy(update={"zones": chosen}))
    return fleet.model_copy(update={"node_pools": tuple(placed)})


def vpc_regions(fleet: FleetConfig) -> list[str]:
    """The regions where this stack creates an EKS cluster, so a VPC."""
    if fleet.clouds.aws is None:
        return []
    return sorted({fleet.region_of(c) for c in fleet.clusters if c.kind == "eks" and not c.stack_reference})


def _vpc_pools(fleet: FleetConfig, region: str) -> list[NodePool]:
    return [p for p in fleet.node_pools if fleet.cluster(p.cluster).kind == "eks"
            and not fleet.cluster(p.cluster).stack_reference and fleet.region_of(fleet.cluster(p.cluster)) == region]


def named_zones(fleet: FleetConfig, region: str) -> list[str]:
    """The zones the pools of a region's VPC name themselves."""
    return sorted({z for p in _vpc_pools(fleet, region) for z in p.zones})


def vpc_zones(fleet: FleetConfig, region: str) -> tuple[str, ...]:
    """The zone IDs a region's VPC spans: `az_count` of them, those selling the most of its EKS pools' types
    (ties to the lower zone ID), always including a zone a pool names (the rules keep those within az_count)."""
    snap = offerings.snapshot("aws", region)
    count = fleet.clouds.aws.az_count
    pools = _vpc_pools(fleet, region)
    named = named_zones(fleet, region)
    served = {z: sum(z in snap.zones_selling([p.instance_type]) for p in pools) for z in snap.zones}
    ranked = named + [z for z in sorted(snap.zones, key=lambda z: (-served[z], z)) if z not in named]
    return tuple(sorted(ranked[:count]))


def wanted_zones(snap: offerings.Snapshot, pool: NodePool, vpc: tuple[str, ...] | None) -> tuple[str, ...]:
    """An EKS pool's zones: those it names, else those of its VPC (any, for another stack's) selling its type."""
    if pool.zones:
        return pool.zones
    offered = snap.zones_selling([pool.instance_type])
    return tuple(z for z in offered if vpc is None or z in vpc) or tuple(vpc or ())


def _aks_zones(location: str, pool: NodePool) -> tuple[str, ...]:
    from sahab.components.azure.plan import ZONAL_LOCATIONS

    if location not in ZONAL_LOCATIONS:
        return ()
    snap = offerings.snapshot("azure", location)
    if snap is None:  # Azure's SKUs are not in the repository: placement is the pool's, or regional
        return pool.zones
    return pool.zones or snap.offered.get(pool.instance_type, ())

"""Derived defaults: what the schema fills in once the rules hold (instance types, GPU drivers and counts,
zones, the control plane's scheduling), checked against the hardware catalog and the clouds' offerings."""

from __future__ import annotations

import ipaddress
from typing import Any

from components import catalog, gpu_stack, offerings, validation
from components.errors import ConfigError
from components.fleet_config import rules
from components.fleet_config.clusters import Cluster
from components.fleet_config.pools import AKS_SPOT_TAINT, NodePool
from components.fleet_config.root import FleetConfig
from components.fleet_config.sites import Site
from components.fleet_config.types import ROOT
from components.hybrid_config import check_hybrid
from components.registry_config import check_registries


def resolve(fleet: FleetConfig) -> FleetConfig:
    """Cross-field rules, then fill in derived defaults (instance types)."""
    allowed = fleet.residency.allowed_regions
    aws, azure = fleet.clouds.aws, fleet.clouds.azure

    def in_residency(region: str, path: str) -> None:
        if region not in allowed:
            raise ConfigError(path, f"{region!r} is outside the residency list; allowed: {', '.join(allowed)}")

    if aws:
        in_residency(aws.region, f"{ROOT}.clouds.aws.region")
    if azure:
        in_residency(azure.location, f"{ROOT}.clouds.azure.location")
    check_registries(fleet.registries, allowed, aws.account_id if aws else None, azure.location if azure else None,
                     ROOT)

    rules.unique(fleet.sites, "site", f"{ROOT}.sites")
    for i, site in enumerate(fleet.sites):
        if site.country not in fleet.residency.allowed_countries:
            raise ConfigError(f"{ROOT}.sites[{i}].country", f"{site.country!r} is outside the residency list; "
                              f"allowed: {', '.join(fleet.residency.allowed_countries)}")
        rules.unique(site.hosts, "host", f"{ROOT}.sites[{i}].hosts")
        rules.inside_node_networks(site, f"{ROOT}.sites[{i}]")
        recorded = [bool(h.ssh_host_keys) for h in site.hosts]
        if any(recorded) and not all(recorded):
            j = recorded.index(False)
            raise ConfigError(f"{ROOT}.sites[{i}].hosts[{j}].ssh_host_keys", "missing while other hosts of the site "
                              "record theirs: Ansible then trusts only recorded keys; record every host's "
                              "(sahab init --accept-new-host-keys) or none")
    rules.unique_addresses(fleet)

    rules.unique(fleet.clusters, "cluster", f"{ROOT}.clusters")
    clusters_resolved = []
    for i, cluster in enumerate(fleet.clusters):
        path = f"{ROOT}.clusters[{i}]"
        if cluster.kind == "eks" and aws is None:
            raise ConfigError(f"{path}.kind", "an eks cluster needs clouds.aws to be set")
        if cluster.kind == "aks" and azure is None:
            raise ConfigError(f"{path}.kind", "an aks cluster needs clouds.azure to be set")
        if cluster.location is not None:
            if cluster.kind == "onprem":
                raise ConfigError(f"{path}.location", "only eks/aks clusters take a location")
            in_residency(cluster.location, f"{path}.location")
        if cluster.kind == "onprem" and cluster.stack_reference:
            if cluster.site or cluster.control_plane_hosts:
                raise ConfigError(f"{path}.site", "a cluster taken from another stack takes no site or hosts here")
            clusters_resolved.append(cluster)
        elif cluster.kind == "onprem":
            sites = [s.name for s in fleet.sites]
            if cluster.site not in sites:
                raise ConfigError(f"{path}.site", f"{cluster.site!r} is not a site; allowed: {', '.join(sites)}")
            hosts = [h.name for h in fleet.site(cluster.site).hosts]
            if not cluster.control_plane_hosts:
                raise ConfigError(f"{path}.control_plane_hosts", "an onprem cluster needs at least one host")
            for j, host in enumerate(cluster.control_plane_hosts):
                if host not in hosts:
                    raise ConfigError(f"{path}.control_plane_hosts[{j}]",
                                      f"{host!r} is not a host of site {cluster.site}; allowed: {', '.join(hosts)}")
            clusters_resolved.append(_resolve_control_plane(fleet, cluster, path))
        elif (cluster.site or cluster.control_plane_hosts or cluster.control_plane_vip
              or cluster.schedule_on_control_plane is not None):
            raise ConfigError(f"{path}.site", "only onprem clusters take a site, control_plane_hosts, "
                              "control_plane_vip and schedule_on_control_plane")
        else:
            clusters_resolved.append(cluster)
        rules.check_public_endpoint(cluster, path)
        rules.check_region_access(fleet, cluster, path)
    rules.check_aks_per_vnet(fleet)
    fleet = fleet.model_copy(update={"clusters": tuple(clusters_resolved)})

    rules.unique(fleet.node_pools, "node pool", f"{ROOT}.node_pools")
    clusters = [c.name for c in fleet.clusters]
    pools = []
    for i, pool in enumerate(fleet.node_pools):
        path = f"{ROOT}.node_pools[{i}]"
        if pool.cluster not in clusters:
            raise ConfigError(f"{path}.cluster", f"{pool.cluster!r} is not a cluster; allowed: {', '.join(clusters)}")
        if not pool.min_size <= pool.size <= pool.max_size:
            field = "desired_size" if pool.desired_size is not None else "min_size"
            raise ConfigError(f"{path}.{field}", f"sizes must satisfy min_size <= desired_size <= max_size "
                              f"(got {pool.min_size} <= {pool.size} <= {pool.max_size})")
        if not pool.is_gpu and (pool.mig_strategy != "none" or pool.time_slicing_replicas or pool.gpus_per_node):
            raise ConfigError(f"{path}.accelerator", "MIG, time-slicing and gpus_per_node apply to GPU pools only")
        rules.check_labels_and_taints(pool, path)
        cluster = fleet.cluster(pool.cluster)
        rules.check_gpu_sharing(pool, path)
        if cluster.kind == "onprem" and cluster.stack_reference:
            raise ConfigError(f"{path}.cluster", f"{pool.cluster!r} comes from another stack; on-prem pools "
                              "are added by the stack that owns their site")
        if cluster.kind == "onprem":
            pools.append(_resolve_onprem_pool(fleet, cluster, pool, path))
        else:
            pools.append(_resolve_cloud_pool(fleet, cluster, pool, path))

    rules.unique(fleet.storage.buckets, "bucket", f"{ROOT}.storage.buckets")
    for i, bucket in enumerate(fleet.storage.buckets):
        path = f"{ROOT}.storage.buckets[{i}]"
        if getattr(fleet.clouds, bucket.cloud) is None:
            raise ConfigError(f"{path}.cloud", f"a {bucket.cloud} bucket needs clouds.{bucket.cloud} to be set")
        if bucket.replicate_to is not None:
            if bucket.cloud != "aws":
                raise ConfigError(f"{path}.replicate_to", "replication applies to aws buckets; "
                                  "use geo_redundant for azure")
            in_residency(bucket.replicate_to, f"{path}.replicate_to")
        if bucket.geo_redundant and bucket.cloud != "azure":
            raise ConfigError(f"{path}.geo_redundant", "geo_redundant applies to azure buckets only")
    rules.check_pool_hosts(fleet)
    check_hybrid(fleet, ROOT)
    rules.check_teams(fleet.workload)
    rules.check_store_teams(fleet)
    rules.check_cloud_names(fleet)
    teams = [t.name for t in fleet.workload.teams]
    if fleet.workload.team is not None and fleet.workload.team not in teams:
        raise ConfigError(f"{ROOT}.workload.team",
                          f"{fleet.workload.team!r} is not a team; allowed: {', '.join(teams)}")
    if fleet.workload.enabled:
        for i, cluster in enumerate(fleet.clusters):
            if validation.older_than(cluster.kubernetes_version, validation.TRAINING_MIN_KUBERNETES):
                raise ConfigError(f"{ROOT}.clusters[{i}].kubernetes_version",
                                  f"{cluster.kubernetes_version} cannot run the workload's training Jobs (their "
                                  f"successPolicy needs {validation.TRAINING_MIN_KUBERNETES} or later); allowed: "
                                  f"{validation.TRAINING_MIN_KUBERNETES} or later, or workload.enabled: false")
    resolved = _place_zones(fleet.model_copy(update={"node_pools": tuple(pools)}))
    for i, pool in enumerate(resolved.node_pools):
        rules.check_worker_gpus(pool, f"{ROOT}.node_pools[{i}]")
    if fleet.burst is not None:
        rules.check_burst(resolved)
    return resolved



def _resolve_onprem_pool(fleet: FleetConfig, cluster: Cluster, pool: NodePool, path: str) -> NodePool:
    if pool.instance_type is not None or pool.spot:
        raise ConfigError(f"{path}.instance_type", "on-prem pools take hosts, not instance_type or spot")
    if not pool.hosts:
        raise ConfigError(f"{path}.hosts", "an on-prem pool needs at least one host")
    hosts = [h.name for h in fleet.site(cluster.site).hosts]
    for j, host in enumerate(pool.hosts):
        if host not in hosts:
            raise ConfigError(f"{path}.hosts[{j}]",
                              f"{host!r} is not a host of site {cluster.site}; allowed: {', '.join(hosts)}")
    if not cluster.schedule_on_control_plane:
        for j, host in enumerate(pool.hosts):
            if host in cluster.control_plane_hosts:
                raise ConfigError(f"{path}.hosts[{j}]", f"{host!r} runs the control plane of {cluster.name}; list it "
                                  "in a pool only with the cluster's schedule_on_control_plane: true")
    for field in ("zones", "efa"):
        if getattr(pool, field):
            raise ConfigError(f"{path}.{field}", "applies to cloud pools only")
    try:
        driver = gpu_stack.resolve("onprem", pool.gpu_driver) if pool.is_gpu else pool.gpu_driver
    except ValueError as err:
        raise ConfigError(f"{path}.gpu_driver", str(err)) from None
    n = len(pool.hosts)
    gpus = _host_gpus(fleet, fleet.site(cluster.site), pool, path)
    return pool.model_copy(update={"min_size": n, "max_size": n, "desired_size": n, "gpus_per_node": gpus,
                                   "gpu_driver": driver, "efa": False})


def _host_gpus(fleet: FleetConfig, site: Site, pool: NodePool, path: str) -> int | None:
    """The pool's GPUs per node from what its hosts declare: a GPU pool's hosts all carry its accelerator, the
    same number of them; a CPU pool's hosts carry none. A mismatch names the pool and the hosts."""
    declared = {h.name: h.gpus for h in site.hosts if h.name in pool.hosts}
    where = f"{ROOT}.sites[{fleet.sites.index(site)}].hosts[].gpus"
    if not pool.is_gpu:
        carrying = [f"{h} ({g.count} {g.accelerator})" for h, g in declared.items() if g is not None]
        if carrying:
            raise ConfigError(f"{path}.accelerator", f"pool {pool.name} is a cpu pool but its hosts "
                              f"{', '.join(carrying)} carry GPUs; allowed: the hosts' accelerator, or hosts "
                              "without GPUs")
        return None
    missing = [h for h, g in declared.items() if g is None]
    if missing:
        raise ConfigError(f"{path}.hosts", f"pool {pool.name} asks for {pool.accelerator} GPUs but hosts "
                          f"{', '.join(missing)} declare no GPUs ({where}); declare each host's "
                          f"`gpus: {{accelerator: {pool.accelerator}, count: N}}`, or make it a cpu pool")
    other = [f"{h} ({g.accelerator})" for h, g in declared.items() if g.accelerator != pool.accelerator]
    if other:
        raise ConfigError(f"{path}.accelerator", f"pool {pool.name} asks for {pool.accelerator} GPUs but hosts "
                          f"{', '.join(other)} carry other GPUs; a pool's hosts all carry its accelerator")
    counts = {h: g.count for h, g in declared.items()}
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{h} ({c})" for h, c in counts.items())
        raise ConfigError(f"{path}.hosts", f"pool {pool.name}'s hosts carry different numbers of GPUs: {listed}; "
                          "a pool's nodes are alike: split it by GPU count")
    count = next(iter(counts.values()))
    if pool.gpus_per_node is not None and pool.gpus_per_node != count:
        raise ConfigError(f"{path}.gpus_per_node", f"pool {pool.name} says {pool.gpus_per_node} GPUs per node but "
                          f"hosts {', '.join(counts)} carry {count}; allowed: {count} (or unset)")
    return count


def _resolve_control_plane(fleet: FleetConfig, cluster: Cluster, path: str) -> Cluster:
    """HA rules (1 or 3+ hosts, a VIP with 3+) and the schedule_on_control_plane default."""
    site = fleet.site(cluster.site)
    n = len(cluster.control_plane_hosts)
    if n == 2:
        raise ConfigError(f"{path}.control_plane_hosts", "2 control-plane hosts cannot keep an etcd majority when "
                          "one fails; allowed: 1, or 3 or more")
    if len(set(cluster.control_plane_hosts)) != n:
        raise ConfigError(f"{path}.control_plane_hosts", "a host is listed twice")
    vip = cluster.control_plane_vip
    if n >= 3 and vip is None:
        raise ConfigError(f"{path}.control_plane_vip", f"required with {n} control-plane hosts: an unused IP "
                          "address in their network that kube-vip moves to the live API server")
    if vip is not None:
        address = ipaddress.ip_address(vip)  # canonical (the schema checked it)
        if address.is_loopback or address.is_multicast or address.is_unspecified:
            raise ConfigError(f"{path}.control_plane_vip", f"{vip!r} cannot be a virtual IP; allowed: a unicast "
                              "address in the control-plane hosts' network")
        if site.node_networks and not any(address in ipaddress.ip_network(n) for n in site.node_networks):
            raise ConfigError(f"{path}.control_plane_vip", f"{vip!r} is outside site {site.name}'s node_networks "
                              f"({', '.join(site.node_networks)}); the nodes' firewalls would drop the API server")
        taken = {h.address: h.name for h in site.hosts}
        if vip in taken:
            raise ConfigError(f"{path}.control_plane_vip", f"{vip!r} is the address of host {taken[vip]}; the "
                              "virtual IP must be an unused address")
    schedule = cluster.schedule_on_control_plane
    if schedule is None:
        schedule = fleet.environment == "smb" and len(site.hosts) <= 3
    elif schedule and len(site.hosts) > 3:
        raise ConfigError(f"{path}.schedule_on_control_plane", f"site {site.name} has {len(site.hosts)} hosts; "
                          "workloads may share control-plane hosts only on sites of up to 3 hosts")
    return cluster.model_copy(update={"schedule_on_control_plane": schedule})


def _resolve_cloud_pool(fleet: FleetConfig, cluster: Cluster, pool: NodePool, path: str) -> NodePool:
    if pool.hosts:
        raise ConfigError(f"{path}.hosts", "only on-prem pools take hosts")
    cloud, region = fleet.cloud_of(cluster), fleet.region_of(cluster)
    snap = offerings.snapshot(cloud, region)
    if cloud == "aws" and snap is None:
        raise ConfigError(f"{path}.cluster", f"no EC2 offerings snapshot for {region}, so nothing says what it sells; "
                          f"write one: {offerings.REFRESH['aws'].replace('all', region).split('   #')[0]}")
    candidates = catalog.instance_types(cloud, pool.accelerator)
    if snap is not None and candidates and not any(snap.sells(t) for t in candidates):
        raise ConfigError(f"{path}.accelerator", f"{pool.accelerator!r} is not offered in {region} "
                          f"({_what_sells(snap)}); {_regions_that_sell(fleet, cloud, candidates)}")
    instance_type = pool.instance_type or catalog.default_instance_type(cloud, pool.accelerator, snap)
    if instance_type is None:
        raise ConfigError(f"{path}.instance_type", f"no {cloud} instance type carries {pool.accelerator!r}")
    carried = catalog.accelerator_of_instance(cloud, instance_type)
    if carried is None:
        raise ConfigError(f"{path}.instance_type", f"{validation.shown(instance_type)} is not in the hardware "
                          f"catalog; allowed for {pool.accelerator}: {_catalog_types(cloud, pool.accelerator)}")
    if carried != pool.accelerator:
        raise ConfigError(f"{path}.instance_type",
                          f"{instance_type!r} carries {carried!r}, but the pool's accelerator is {pool.accelerator!r}")
    if snap is not None and not snap.sells(instance_type):
        sold = [t for t in candidates if snap.sells(t)]
        why = f"refused there: {snap.restricted[instance_type]}" if instance_type in snap.restricted else \
            _what_sells(snap)
        raise ConfigError(f"{path}.instance_type", f"{instance_type!r} is not offered in {region} ({why}); offered "
                          f"there for {pool.accelerator}: {_by_family(sold)}")
    if cloud == "azure" and catalog.azure_rdma(instance_type):
        raise ConfigError(f"{path}.instance_type", f"{instance_type!r} joins nodes over InfiniBand, and Sahab does "
                          "not set up RDMA on AKS (NVIDIA Network Operator with OFED, the RDMA shared device plugin, "
                          "the GPU operator's driver.rdma, the subscription's feature registration and an IPC_LOCK "
                          "exception in the teams' pod security): multi-node training there would fall back to TCP; "
                          f"allowed for {pool.accelerator}: {_listed(_plain_azure(pool.accelerator)) or 'none'}")
    try:
        driver = gpu_stack.resolve(cluster.kind, pool.gpu_driver) if pool.is_gpu else pool.gpu_driver
    except ValueError as err:
        raise ConfigError(f"{path}.gpu_driver", str(err)) from None
    efa = _efa(cluster, pool, instance_type, path)
    gpus = pool.gpus_per_node or (catalog.gpus_per_instance(cloud, instance_type) if pool.is_gpu else None)
    update: dict[str, Any] = {"instance_type": instance_type, "gpus_per_node": gpus, "gpu_driver": driver,
                              "efa": efa}
    if cluster.kind == "aks" and pool.spot and AKS_SPOT_TAINT not in pool.extra_taints:
        # AKS taints every spot node itself: stated here, every pod and flavor that must land there tolerates it.
        update["extra_taints"] = (*pool.extra_taints, AKS_SPOT_TAINT)
    return pool.model_copy(update=update)


def _efa(cluster: Cluster, pool: NodePool, instance_type: str, path: str) -> bool:
    """EFA on an EKS pool: on by default where the type has EFA interfaces and the pool can span nodes."""
    if cluster.kind != "eks":
        if pool.efa:
            raise ConfigError(f"{path}.efa", "EFA applies to EKS pools only")
        return False
    facts = offerings.aws_instance(instance_type)
    capable = bool(facts and facts.efa_interfaces)
    if pool.efa and not capable:
        raise ConfigError(f"{path}.efa", f"{instance_type} has no EFA interface (EC2's instance data); EFA-capable "
                          f"sizes for {pool.accelerator}: {_listed(_efa_types(pool.accelerator)) or 'none'}")
    return capable and pool.max_size > 1 if pool.efa is None else pool.efa


def _efa_types(accelerator: str) -> list[str]:
    return [t for t in catalog.instance_types("aws", accelerator)
            if (offerings.aws_instance(t) or offerings.InstanceFacts(0, 0, 0, None, 0, 1)).efa_interfaces]


def _plain_azure(accelerator: str) -> list[str]:
    return [t for t in catalog.instance_types("azure", accelerator) if not catalog.azure_rdma(t)]


def _by_family(instance_types: list[str]) -> str:
    """A short list: every type when there are few, else the families with an example."""
    if len(instance_types) <= 12:
        return ", ".join(instance_types) or "none"
    families = list(dict.fromkeys(t.partition(".")[0] for t in instance_types))
    return f"sizes of {', '.join(families)} (e.g. {instance_types[min(2, len(instance_types) - 1)]})"


def _listed(items: list[str], limit: int = 12) -> str:
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _what_sells(snap: offerings.Snapshot) -> str:
    api = "EC2's offerings" if snap.cloud == "aws" else "Azure's Resource SKUs"
    return f"per {api} as of {snap.data_as_of.isoformat()}"


def _regions_that_sell(fleet: FleetConfig, cloud: str, instance_types: list[str]) -> str:
    selling = offerings.regions_selling(cloud, instance_types)
    allowed = [r for r in selling if r in fleet.residency.allowed_regions]
    if allowed:
        return f"allowed regions that offer it: {', '.join(allowed)}"
    return (f"no allowed region offers it ({', '.join(fleet.residency.allowed_regions)}); regions that do: "
            f"{_listed(selling, 8) or 'none in the snapshots'}")


def _place_zones(fleet: FleetConfig) -> FleetConfig:
    """Every cloud pool's zones: where it is placed, resolved once so the plan, readiness and the network agree.
    An EKS VPC gets subnets in `az_count` zones chosen to serve its region's pools; each EKS pool uses those of
    them that sell its type (one for an EFA pool); a burst pool on another stack's cluster takes every zone that
    sells its type (its node group uses those the owning stack's VPC has)."""
    aws = fleet.clouds.aws
    vpc = {region: vpc_zones(fleet, region) for region in
           {fleet.region_of(c) for c in fleet.clusters if c.kind == "eks" and not c.stack_reference}} if aws else {}
    pools = []
    for i, pool in enumerate(fleet.node_pools):
        cluster, path = fleet.cluster(pool.cluster), f"{ROOT}.node_pools[{i}]"
        if cluster.kind == "onprem":
            pools.append(pool)
            continue
        region = fleet.region_of(cluster)
        zones = _pool_zones(fleet, cluster, pool, vpc.get(region), path)
        pools.append(pool.model_copy(update={"zones": zones}))
    return fleet.model_copy(update={"node_pools": tuple(pools)})


def vpc_zones(fleet: FleetConfig, region: str) -> tuple[str, ...]:
    """The zone IDs a region's VPC spans: `az_count` of them, those selling the most of its EKS pools' types
    (ties to the lower zone ID), always including a zone a pool names."""
    snap = offerings.snapshot("aws", region)
    count = fleet.clouds.aws.az_count
    pools = [p for p in fleet.node_pools if fleet.cluster(p.cluster).kind == "eks"
             and not fleet.cluster(p.cluster).stack_reference and fleet.region_of(fleet.cluster(p.cluster)) == region]
    named = sorted({z for p in pools for z in p.zones})
    if len(named) > count:
        raise ConfigError(f"{ROOT}.clouds.aws.az_count", f"the pools of {region} name zones {', '.join(named)}; the "
                          f"VPC spans {count}; allowed: at least {len(named)} (at most {len(snap.zones)})")
    served = {z: sum(z in snap.zones_selling([p.instance_type]) for p in pools) for z in snap.zones}
    ranked = named + [z for z in sorted(snap.zones, key=lambda z: (-served[z], z)) if z not in named]
    return tuple(sorted(ranked[:count]))


def _pool_zones(fleet: FleetConfig, cluster: Cluster, pool: NodePool, vpc: tuple[str, ...] | None,
                path: str) -> tuple[str, ...]:
    region = fleet.region_of(cluster)
    snap = offerings.snapshot(fleet.cloud_of(cluster), region)
    if cluster.kind == "aks":
        return _aks_zones(fleet, cluster, pool, snap, path)
    offered = snap.zones_selling([pool.instance_type])
    unknown = [z for z in pool.zones if z not in snap.zones]
    if unknown:
        raise ConfigError(f"{path}.zones", f"{', '.join(unknown)} is not a zone ID of {region}; its zones: "
                          f"{', '.join(snap.zones)}")
    if pool.efa and len(pool.zones) > 1:
        raise ConfigError(f"{path}.zones", "an EFA pool runs in one zone (its cluster placement group's); name one "
                          f"of {', '.join(offered)}, or set efa: false")
    if pool.zones:
        wanted = pool.zones
    else:
        wanted = tuple(z for z in offered if vpc is None or z in vpc)
        if not wanted:
            wanted = tuple(vpc or ())
    missing = [z for z in wanted if z not in offered]
    if missing or not wanted:
        raise ConfigError(f"{path}.zones" if pool.zones else f"{path}.instance_type",
                          f"node pool {pool.name}: {pool.instance_type} is offered in {region} zones "
                          f"{', '.join(offered) or 'none'}; zones wanted: {', '.join(wanted) or 'none'} "
                          f"({_what_sells(snap)})")
    if vpc is not None and any(z not in vpc for z in wanted):
        outside = [z for z in wanted if z not in vpc]
        raise ConfigError(f"{path}.zones", f"node pool {pool.name} wants {', '.join(outside)}, outside the VPC's "
                          f"zones {', '.join(vpc)} (raise clouds.aws.az_count)")
    return wanted[:1] if pool.efa else wanted


def _aks_zones(fleet: FleetConfig, cluster: Cluster, pool: NodePool, snap: offerings.Snapshot | None,
               path: str) -> tuple[str, ...]:
    from components.azure.plan import ZONAL_LOCATIONS

    location = fleet.region_of(cluster)
    if location not in ZONAL_LOCATIONS:
        if pool.zones:
            raise ConfigError(f"{path}.zones", f"{location} has no availability zones; allowed: none")
        return ()
    if snap is None:  # Azure's SKUs are not in the repository: placement is the pool's, or regional
        return pool.zones
    offered = snap.offered.get(pool.instance_type, ())
    missing = [z for z in pool.zones if z not in offered]
    if missing:
        raise ConfigError(f"{path}.zones", f"node pool {pool.name}: {pool.instance_type} is offered in {location} "
                          f"zones {', '.join(offered) or 'none'}; zones wanted: {', '.join(pool.zones)} "
                          f"({_what_sells(snap)})")
    return pool.zones or offered


def _catalog_types(cloud: str, accelerator: str) -> str:
    if cloud == "aws":
        types = catalog.instance_types("aws", accelerator)
        if len(types) <= 16:
            return ", ".join(types)
        families = ", ".join(catalog.CATALOG[accelerator].aws_families)
        return f"a size the family sells in one of the families {families}, e.g. {types[2]}"
    if accelerator == "cpu":
        return "Standard_D, Standard_E or Standard_F sizes like Standard_D8s_v5 or Standard_E16ads_v5"
    return ", ".join(catalog.CATALOG[accelerator].azure_series)


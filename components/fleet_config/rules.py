"""The fleet's cross-field rules: what no single field can say alone (names that refer to other entries, sizes,
regions against the residency list, instance types against the catalog and the clouds' offerings, derived cloud
names). One function per section; each yields every problem it finds as a ConfigError at its config path, so a
fleet with several mistakes hears of all of them at once (the model: kueue's pkg/config/validation.go, whose
validators return a field.ErrorList keyed by field path).

Within one entry (a cluster, a pool) a rule whose premise another refused is skipped: a pool on an unknown
cluster is told that, not also that its instance type suits no cluster. `fleet` runs on the parsed fleet;
`zones` and `placement` run on what `resolve` derived from it (instance types, GPU counts)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator
from typing import Any

from sahab.components import accelerators, gpu_stack, offerings, validation
from sahab.components.artifacts import UPSTREAMS
from sahab.components.azure.plan import LOCATION_ZONES, ZONAL_LOCATIONS, storage_sku
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import resolve
from sahab.components.fleet_config.clouds import RESTRICTED_LOCATIONS
from sahab.components.fleet_config.clusters import Cluster
from sahab.components.fleet_config.pools import NodePool
from sahab.components.fleet_config.root import FleetConfig
from sahab.components.fleet_config.sites import Site
from sahab.components.fleet_config.types import ROOT, config_path
from sahab.components.hybrid_plan import MAX_LINKED_SITES
from sahab.components.network_plan import MAX_AKS_CLUSTERS_PER_VNET, plan_api_server_subnets
from sahab.components.registry_config import (
    ACR_HOST,
    AZURE_UAE,
    ECR_HOST,
    HOST_PORT,
    AcrRegistry,
    EcrRegistry,
    MirrorRegistry,
    public_host,
)

Problems = Iterator[ConfigError]


def fleet(config: FleetConfig) -> list[ConfigError]:
    """Every problem of the parsed fleet, section by section."""
    sections = (clouds, registries, sites, clusters, pools, storage, links, workload, names, burst)
    return [problem for section in sections for problem in section(config)]


def _unique(items: Iterable[Any], what: str, path: str) -> Problems:
    names = [item.name for item in items]
    for i in validation.repeated(names):
        yield ConfigError(f"{path}[{i}].name", f"duplicate {what} name {names[i]!r}; names must be unique")


def _outside_residency(fleet: FleetConfig, region: str, path: str) -> Problems:
    allowed = fleet.residency.allowed_regions
    if region not in allowed:
        yield ConfigError(path, f"{region!r} is outside the residency list; allowed: {', '.join(allowed)}")


def usable(fleet: FleetConfig, cluster: Cluster) -> bool:
    """A cluster whose references resolve: its cloud is set and its region allowed; an on-prem one's site exists
    (or it is another stack's). Rules about its pools, names and burst run only on these: the others are refused
    with the cluster itself."""
    if cluster.kind == "onprem":
        return cluster.stack_reference is not None or cluster.site in {s.name for s in fleet.sites}
    if getattr(fleet.clouds, "aws" if cluster.kind == "eks" else "azure") is None:
        return False
    return fleet.region_of(cluster) in fleet.residency.allowed_regions


def _clusters_by_name(fleet: FleetConfig) -> dict[str, Cluster]:
    found: dict[str, Cluster] = {}
    for cluster in fleet.clusters:
        found.setdefault(cluster.name, cluster)
    return found


# ---- clouds and registries -------------------------------------------------------------------------------------
def clouds(fleet: FleetConfig) -> Problems:
    aws, azure = fleet.clouds.aws, fleet.clouds.azure
    if aws:
        yield from _outside_residency(fleet, aws.region, f"{ROOT}.clouds.aws.region")
    if azure:
        yield from _outside_residency(fleet, azure.location, f"{ROOT}.clouds.azure.location")


def registries(fleet: FleetConfig) -> Problems:
    """Grammar and residency of every registry (components.registry_config), each problem at its field; the ACR's
    landing zone only once all of them are sound."""
    problems = [p for kind, registry in fleet.registries if registry is not None
                for p in _registry(fleet, kind, registry)]  # each kind's registry model says which rules it follows
    yield from problems
    if not problems:
        yield from _registry_zone(fleet)


def _registry(fleet: FleetConfig, kind: str, registry: EcrRegistry | AcrRegistry | MirrorRegistry) -> Problems:
    path, allowed_regions = f"{ROOT}.registries.{kind}", fleet.residency.allowed_regions
    where, host = f"{path}.host", registry.host.lower()
    match = HOST_PORT.match(registry.host)
    if not match or (match["port"] and not 0 < int(match["port"]) < 65536):
        yield ConfigError(where, f"{registry.host!r} is not host[:port] (DNS labels, an optional port 1-65535)")
    elif isinstance(registry, EcrRegistry):
        yield from _ecr_host(fleet, registry.host, where)
    elif isinstance(registry, AcrRegistry):
        if not ACR_HOST.match(host):
            yield ConfigError(where, f"{registry.host!r} is not an Azure Container Registry; allowed: "
                              "<name>.azurecr.io with a name of 5-50 lower-case letters and digits")
    elif public_host(host.split(":")[0]) or host.endswith((".amazonaws.com", ".azurecr.io")):
        yield ConfigError(where, f"{registry.host!r} is a cloud or public registry, not an on-prem mirror; "
                          "allowed: the host[:port] of the sites' own registry")
    if isinstance(registry, AcrRegistry):
        azure = fleet.clouds.azure
        location = registry.location or (azure.location if azure else None)
        allowed = [r for r in allowed_regions if r in AZURE_UAE]
        if location is None:
            yield ConfigError(f"{path}.location", f"required without clouds.azure; allowed: "
                              f"{', '.join(allowed) or 'none (no UAE Azure location in the residency list)'}")
        elif location not in allowed:
            yield ConfigError(f"{path}.location", f"{location!r} is outside the country; allowed: "
                              f"{', '.join(allowed) or 'none (no UAE Azure location in the residency list)'}")
    for upstream in getattr(registry, "upstream_credentials", {}):  # a mirror takes none
        known = UPSTREAMS.get(upstream)
        if known is None or not known.needs_credentials:
            needing = ", ".join(u.host for u in UPSTREAMS.values() if u.needs_credentials)
            yield ConfigError(f"{path}.upstream_credentials", f"{upstream!r} takes no credentials; allowed: {needing}")


def _ecr_host(fleet: FleetConfig, host: str, where: str) -> Problems:
    """An ECR registry in an AWS Region of the residency list, of the fleet's account."""
    ecr = ECR_HOST.match(host.lower())
    if not ecr:
        yield ConfigError(where, f"{host!r} is not an ECR registry; allowed: <account>.dkr.ecr.<region>.amazonaws.com")
        return
    aws_regions = [r for r in fleet.residency.allowed_regions if r not in AZURE_UAE]
    if ecr["region"] not in aws_regions:
        yield ConfigError(where, f"{host!r} is in {ecr['region']}, outside the residency list; "
                          f"allowed: {', '.join(aws_regions) or 'none (no AWS region in the residency list)'}")
    account_id = fleet.clouds.aws.account_id if fleet.clouds.aws else None
    if account_id and ecr["account"] != account_id:
        yield ConfigError(where, f"{host!r} is in account {ecr['account']}, not the fleet's account {account_id} "
                          "(clouds.aws.account_id)")


def _registry_zone(fleet: FleetConfig) -> Problems:
    """The in-country ACR goes into a landing zone of this stack: a location where it creates an AKS cluster, or
    the Azure location when it holds Azure buckets (components.fleet, components.registry_build)."""
    acr, azure = fleet.registries.aks, fleet.clouds.azure
    created = [c for c in fleet.clusters if c.kind == "aks" and not c.stack_reference]
    if acr is None or azure is None or not created or not all(usable(fleet, c) for c in created):
        return
    zones = {fleet.region_of(c) for c in created}
    zones |= {azure.location} if any(b.cloud == "azure" for b in fleet.storage.buckets) else set()
    location = acr.location or azure.location
    if location not in zones:
        yield ConfigError(f"{ROOT}.registries.aks.location", f"{location!r} has no landing zone in this stack (no "
                          f"AKS cluster there); allowed: {', '.join(sorted(zones))}")


# ---- sites -----------------------------------------------------------------------------------------------------
def sites(fleet: FleetConfig) -> Problems:
    yield from _unique(fleet.sites, "site", f"{ROOT}.sites")
    for i, site in enumerate(fleet.sites):
        path = f"{ROOT}.sites[{i}]"
        if site.country not in fleet.residency.allowed_countries:
            yield ConfigError(f"{path}.country", f"{site.country!r} is outside the residency list; "
                              f"allowed: {', '.join(fleet.residency.allowed_countries)}")
        yield from _unique(site.hosts, "host", f"{path}.hosts")
        yield from _inside_node_networks(site, path)
        recorded = [bool(h.ssh_host_keys) for h in site.hosts]
        if any(recorded) and not all(recorded):
            j = recorded.index(False)
            yield ConfigError(f"{path}.hosts[{j}].ssh_host_keys", "missing while other hosts of the site "
                              "record theirs: Ansible then trusts only recorded keys; record every host's "
                              "(sahab init --accept-new-host-keys) or none")
    yield from _unique_addresses(fleet)
    yield from _store_teams(fleet)


def _unique_addresses(fleet: FleetConfig) -> Problems:
    """One server, one entry: two hosts with one address would be one machine joined twice."""
    seen: dict[str, str] = {}
    for i, site in enumerate(fleet.sites):
        for j, host in enumerate(site.hosts):
            address = str(ipaddress.ip_address(host.address))  # one spelling per address (IPv6 forms differ)
            if address in seen:
                yield ConfigError(f"{ROOT}.sites[{i}].hosts[{j}].address",
                                  f"{host.address} is already the address of {seen[address]}; each host needs its own")
            else:
                seen[address] = f"host {host.name} of site {site.name}"


def _inside_node_networks(site: Site, path: str) -> Problems:
    """With node_networks set, a host outside them could not reach the others through their firewalls."""
    if not site.node_networks:
        return
    networks = [ipaddress.ip_network(n) for n in site.node_networks]
    for j, host in enumerate(site.hosts):
        if not any(ipaddress.ip_address(host.address) in n for n in networks):
            yield ConfigError(f"{path}.hosts[{j}].address", f"{host.address} is outside the site's node_networks "
                              f"({', '.join(site.node_networks)}); the other nodes' firewalls would drop it")


def _store_teams(fleet: FleetConfig) -> Problems:
    """A site's store keys belong to teams of the fleet."""
    teams = [t.name for t in fleet.workload.teams]
    for i, site in enumerate(fleet.sites):
        for team in site.object_store.team_credentials if site.object_store else ():
            if team not in teams:
                yield ConfigError(config_path(("sites", i, "object_store", "team_credentials", team)),
                                  f"{team!r} is not a team; allowed: {', '.join(teams) or 'none'}")


# ---- clusters --------------------------------------------------------------------------------------------------
def clusters(fleet: FleetConfig) -> Problems:
    yield from _unique(fleet.clusters, "cluster", f"{ROOT}.clusters")
    for i, cluster in enumerate(fleet.clusters):
        path = f"{ROOT}.clusters[{i}]"
        if cluster.kind == "onprem":
            yield from _onprem_cluster(fleet, cluster, path)
            continue
        cloud = "aws" if cluster.kind == "eks" else "azure"
        if getattr(fleet.clouds, cloud) is None:
            yield ConfigError(f"{path}.kind", f"an {cluster.kind} cluster needs clouds.{cloud} to be set")
            continue
        if cluster.location is not None:
            yield from _outside_residency(fleet, cluster.location, f"{path}.location")
        yield from _public_endpoint(cluster, path)
        yield from _region_access(fleet, cluster, path)
    yield from _aks_per_vnet(fleet)


def _onprem_cluster(fleet: FleetConfig, cluster: Cluster, path: str) -> Problems:
    """Its site and control-plane hosts; HA rules (1 or 3+ hosts, a VIP with 3+)."""
    if cluster.stack_reference:
        if cluster.site or cluster.control_plane_hosts:
            yield ConfigError(f"{path}.site", "a cluster taken from another stack takes no site or hosts here")
        return
    sites = [s.name for s in fleet.sites]
    if cluster.site not in sites:
        yield ConfigError(f"{path}.site", f"{cluster.site!r} is not a site; allowed: {', '.join(sites)}")
        return
    site = fleet.site(cluster.site)
    hosts = [h.name for h in site.hosts]
    if not cluster.control_plane_hosts:
        yield ConfigError(f"{path}.control_plane_hosts", "an onprem cluster needs at least one host")
    for j, host in enumerate(cluster.control_plane_hosts):
        if host not in hosts:
            yield ConfigError(f"{path}.control_plane_hosts[{j}]",
                              f"{host!r} is not a host of site {cluster.site}; allowed: {', '.join(hosts)}")
    n = len(cluster.control_plane_hosts)
    if validation.splits_etcd(n):
        yield ConfigError(f"{path}.control_plane_hosts", "2 control-plane hosts cannot keep an etcd majority when "
                          "one fails; allowed: 1, or 3 or more")
    if len(set(cluster.control_plane_hosts)) != n:
        yield ConfigError(f"{path}.control_plane_hosts", "a host is listed twice")
    vip = cluster.control_plane_vip
    if validation.needs_api_vip(n) and vip is None:
        yield ConfigError(f"{path}.control_plane_vip", f"required with {n} control-plane hosts: an unused IP "
                          "address in their network that kube-vip moves to the live API server")
    if vip is not None:
        address = ipaddress.ip_address(vip)  # canonical (the schema checked it)
        taken = {h.address: h.name for h in site.hosts}
        if address.is_loopback or address.is_multicast or address.is_unspecified:
            yield ConfigError(f"{path}.control_plane_vip", f"{vip!r} cannot be a virtual IP; allowed: a unicast "
                              "address in the control-plane hosts' network")
        elif site.node_networks and not any(address in ipaddress.ip_network(n) for n in site.node_networks):
            yield ConfigError(f"{path}.control_plane_vip", f"{vip!r} is outside site {site.name}'s node_networks "
                              f"({', '.join(site.node_networks)}); the nodes' firewalls would drop the API server")
        elif vip in taken:
            yield ConfigError(f"{path}.control_plane_vip", f"{vip!r} is the address of host {taken[vip]}; the "
                              "virtual IP must be an unused address")
    if cluster.schedule_on_control_plane and len(site.hosts) > 3:
        yield ConfigError(f"{path}.schedule_on_control_plane", f"site {site.name} has {len(site.hosts)} hosts; "
                          "workloads may share control-plane hosts only on sites of up to 3 hosts")


def _aks_per_vnet(fleet: FleetConfig) -> Problems:
    """A location's VNet holds a node subnet per AKS cluster in three quarters, private endpoints in the last
    (components.network_plan)."""
    azure = fleet.clouds.azure
    if azure is None:
        return
    seen: dict[str, int] = {}
    for i, cluster in enumerate(fleet.clusters):
        if cluster.kind != "aks" or cluster.stack_reference:
            continue
        location = cluster.location or azure.location
        seen[location] = seen.get(location, 0) + 1
        if seen[location] > MAX_AKS_CLUSTERS_PER_VNET:
            yield ConfigError(f"{ROOT}.clusters[{i}]", f"at most {MAX_AKS_CLUSTERS_PER_VNET} AKS clusters share the "
                              f"VNet of {location}; put this one in another allowed location or another stack")
            continue
        try:
            plan_api_server_subnets(azure.vnet_cidr, ["x"] * seen[location])
        except ValueError as err:
            yield ConfigError(f"{ROOT}.clouds.azure.vnet_cidr", str(err))
            return


def _region_access(fleet: FleetConfig, cluster: Cluster, path: str) -> Problems:
    """A cluster in a location Microsoft opens only on request says the subscription has that access."""
    region = fleet.region_of(cluster)
    if cluster.region_access_granted and region not in RESTRICTED_LOCATIONS:
        yield ConfigError(f"{path}.region_access_granted", f"applies to clusters in a restricted location "
                          f"({', '.join(RESTRICTED_LOCATIONS)}); {region} is not one")
    if region in RESTRICTED_LOCATIONS and not cluster.region_access_granted and not cluster.stack_reference:
        yield ConfigError(f"{path}.region_access_granted", f"{RESTRICTED_LOCATIONS[region]}: request access for the "
                          "subscription (an Azure support request, \"Region access\"), then set "
                          "region_access_granted: true")


def _public_endpoint(cluster: Cluster, path: str) -> Problems:
    if cluster.public_endpoint_cidrs and not cluster.public_endpoint:
        yield ConfigError(f"{path}.public_endpoint_cidrs", "only used with public_endpoint: true")
    if cluster.public_endpoint and not cluster.public_endpoint_cidrs and not cluster.stack_reference:
        yield ConfigError(f"{path}.public_endpoint_cidrs", "public_endpoint: true needs the IPv4 ranges that may "
                          "reach the API server, e.g. [203.0.113.0/24]; an endpoint open to 0.0.0.0/0 is not allowed")


# ---- node pools ------------------------------------------------------------------------------------------------
def pools(fleet: FleetConfig) -> Problems:
    yield from _unique(fleet.node_pools, "node pool", f"{ROOT}.node_pools")
    named = _clusters_by_name(fleet)
    for i, pool in enumerate(fleet.node_pools):
        yield from _pool(fleet, named, pool, f"{ROOT}.node_pools[{i}]")
    yield from _pool_hosts(fleet)
    yield from _one_driver_owner(fleet)


def _pool(fleet: FleetConfig, named: dict[str, Cluster], pool: NodePool, path: str) -> Problems:
    if pool.cluster not in named:
        yield ConfigError(f"{path}.cluster", f"{pool.cluster!r} is not a cluster; allowed: {', '.join(named)}")
    problem = validation.pool_sizes(pool.min_size, pool.size, pool.max_size)
    if problem:
        yield ConfigError(f"{path}.{'desired_size' if pool.desired_size is not None else 'min_size'}", problem)
    if not pool.is_gpu and (pool.mig_strategy != "none" or pool.time_slicing_replicas or pool.gpus_per_node):
        yield ConfigError(f"{path}.accelerator", "MIG, time-slicing and gpus_per_node apply to GPU pools only")
    elif pool.mig_strategy != "none" and not accelerators.has_mig(pool.accelerator):
        yield ConfigError(f"{path}.mig_strategy", f"{pool.accelerator} GPUs have no MIG; allowed: none (MIG is on "
                          f"{', '.join(sorted(accelerators.MIG_GPU_MEMORY_GIB))} only)")
    yield from _labels_and_taints(pool, path)
    yield from _gpu_sharing(pool, path)
    cluster = named.get(pool.cluster)
    if cluster is None or not usable(fleet, cluster):
        return
    if cluster.kind == "onprem" and cluster.stack_reference:
        yield ConfigError(f"{path}.cluster", f"{pool.cluster!r} comes from another stack; on-prem pools "
                          "are added by the stack that owns their site")
    elif cluster.kind == "onprem":
        yield from _onprem_pool(fleet, cluster, pool, path)
    else:
        yield from _cloud_pool(fleet, cluster, pool, path)


def _gpu_sharing(pool: NodePool, path: str) -> Problems:
    """Settings the NVIDIA device plugin cannot schedule: a time-sliced GPU is handed out one slice per pod
    (failRequestsGreaterThanOne), and MIG `mixed` exposes no plain `nvidia.com/gpu` to share."""
    if pool.time_slicing_replicas and pool.gpus_per_worker and pool.gpus_per_worker > 1:
        yield ConfigError(f"{path}.gpus_per_worker", f"{pool.gpus_per_worker} GPUs per worker on a time-sliced "
                          "pool: the device plugin refuses requests over one slice; allowed: 1 (or unset)")
    if pool.time_slicing_replicas and pool.mig_strategy == "mixed":
        yield ConfigError(f"{path}.time_slicing_replicas", "time-slicing shares nvidia.com/gpu, which MIG "
                          "strategy `mixed` does not offer; allowed: mig_strategy none or single")


def _labels_and_taints(pool: NodePool, path: str) -> Problems:
    """Node labels and taints in the grammar every target shares (kubelet flags, EKS, AKS, the Node object)."""
    for key, value in pool.labels.items():
        where = config_path(("labels", key), path)
        problem = validation.node_label_key(key)
        if problem:
            yield ConfigError(where, f"label key {validation.shown(key)} is not allowed; allowed: {problem}")
        problem = validation.label_value(value)
        if problem:
            yield ConfigError(where, f"label value {validation.shown(value)} is not allowed; allowed: {problem}")
    builtin = len(pool.taints) - len(pool.extra_taints)  # the GPU taint comes first
    seen: set[tuple[str, str]] = set()
    for j, taint in enumerate(pool.taints):
        if (taint.key, taint.effect) in seen:
            yield ConfigError(f"{path}.extra_taints[{j - builtin}].key", f"the pool already has a {taint.key} "
                              f"taint with effect {taint.effect}; Kubernetes allows one per key and effect")
        seen.add((taint.key, taint.effect))


def _gpu_driver(kind: str, pool: NodePool, path: str) -> Problems:
    if pool.is_gpu:
        try:
            gpu_stack.resolve(kind, pool.gpu_driver)
        except ValueError as err:
            yield ConfigError(f"{path}.gpu_driver", str(err))


def _onprem_pool(fleet: FleetConfig, cluster: Cluster, pool: NodePool, path: str) -> Problems:
    if pool.instance_type is not None or pool.spot:
        yield ConfigError(f"{path}.instance_type", "on-prem pools take hosts, not instance_type or spot")
        return
    if not pool.hosts:
        yield ConfigError(f"{path}.hosts", "an on-prem pool needs at least one host")
        return
    site = fleet.site(cluster.site)
    hosts = [h.name for h in site.hosts]
    stray = [(j, h) for j, h in enumerate(pool.hosts) if h not in hosts]
    for j, host in stray:
        yield ConfigError(f"{path}.hosts[{j}]",
                          f"{host!r} is not a host of site {cluster.site}; allowed: {', '.join(hosts)}")
    if stray:
        return
    if not resolve.schedules_on_control_plane(fleet, cluster):
        for j, host in enumerate(pool.hosts):
            if host in cluster.control_plane_hosts:
                yield ConfigError(f"{path}.hosts[{j}]", f"{host!r} runs the control plane of {cluster.name}; list it "
                                  "in a pool only with the cluster's schedule_on_control_plane: true")
                return
    for field in ("zones", "efa"):
        if getattr(pool, field):
            yield ConfigError(f"{path}.{field}", "applies to cloud pools only")
            return
    yield from _gpu_driver("onprem", pool, path)
    yield from _host_gpus(fleet, site, pool, path)


def _host_gpus(fleet: FleetConfig, site: Site, pool: NodePool, path: str) -> Problems:
    """A GPU pool's hosts all carry its accelerator, the same number of them; a CPU pool's hosts carry none. A
    mismatch names the pool and the hosts."""
    declared = {h.name: h.gpus for h in site.hosts if h.name in pool.hosts}
    where = f"{ROOT}.sites[{fleet.sites.index(site)}].hosts[].gpus"
    if not pool.is_gpu:
        carrying = [f"{h} ({g.count} {g.accelerator})" for h, g in declared.items() if g is not None]
        if carrying:
            yield ConfigError(f"{path}.accelerator", f"pool {pool.name} is a cpu pool but its hosts "
                              f"{', '.join(carrying)} carry GPUs; allowed: the hosts' accelerator, or hosts "
                              "without GPUs")
        return
    missing = [h for h, g in declared.items() if g is None]
    if missing:
        yield ConfigError(f"{path}.hosts", f"pool {pool.name} asks for {pool.accelerator} GPUs but hosts "
                          f"{', '.join(missing)} declare no GPUs ({where}); declare each host's "
                          f"`gpus: {{accelerator: {pool.accelerator}, count: N}}`, or make it a cpu pool")
        return
    other = [f"{h} ({g.accelerator})" for h, g in declared.items() if g.accelerator != pool.accelerator]
    if other:
        yield ConfigError(f"{path}.accelerator", f"pool {pool.name} asks for {pool.accelerator} GPUs but hosts "
                          f"{', '.join(other)} carry other GPUs; a pool's hosts all carry its accelerator")
        return
    counts = {h: g.count for h, g in declared.items()}
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{h} ({c})" for h, c in counts.items())
        yield ConfigError(f"{path}.hosts", f"pool {pool.name}'s hosts carry different numbers of GPUs: {listed}; "
                          "a pool's nodes are alike: split it by GPU count")
        return
    count = next(iter(counts.values()))
    if pool.gpus_per_node is not None and pool.gpus_per_node != count:
        yield ConfigError(f"{path}.gpus_per_node", f"pool {pool.name} says {pool.gpus_per_node} GPUs per node but "
                          f"hosts {', '.join(counts)} carry {count}; allowed: {count} (or unset)")


def _cloud_pool(fleet: FleetConfig, cluster: Cluster, pool: NodePool, path: str) -> Problems:
    """The instance type carries the pool's accelerator and the region sells it (per its offerings snapshot)."""
    if pool.hosts:
        yield ConfigError(f"{path}.hosts", "only on-prem pools take hosts")
        return
    if pool.max_size == 0:  # the node group and the agent pool both need a ceiling of at least one node
        yield ConfigError(f"{path}.max_size", "a cloud pool needs max_size of at least 1 (min_size 0 lets it "
                          "scale from zero)")
        return
    cloud, region = fleet.cloud_of(cluster), fleet.region_of(cluster)
    snap = offerings.snapshot(cloud, region)
    if cloud == "aws" and snap is None:
        yield ConfigError(f"{path}.cluster", f"no EC2 offerings snapshot for {region}, so nothing says what it sells; "
                          f"write one: {offerings.REFRESH['aws'].replace('all', region).split('   #')[0]}")
        return
    candidates = accelerators.instance_types(cloud, pool.accelerator)
    if snap is not None and candidates and not any(snap.sells(t) for t in candidates):
        yield ConfigError(f"{path}.accelerator", f"{pool.accelerator!r} is not offered in {region} "
                          f"({_what_sells(snap)}); {_regions_that_sell(fleet, cloud, candidates)}")
        return
    instance_type = resolve.instance_type(fleet, cluster, pool)
    if instance_type is None:
        yield ConfigError(f"{path}.instance_type", f"no {cloud} instance type carries {pool.accelerator!r}")
        return
    carried = accelerators.accelerator_of_instance(cloud, instance_type)
    if carried is None:
        yield ConfigError(f"{path}.instance_type", f"{validation.shown(instance_type)} is not in the hardware "
                          f"catalog; allowed for {pool.accelerator}: {_catalog_types(cloud, pool.accelerator)}")
        return
    if carried != pool.accelerator:
        yield ConfigError(f"{path}.instance_type",
                          f"{instance_type!r} carries {carried!r}, but the pool's accelerator is {pool.accelerator!r}")
        return
    if snap is not None and not snap.sells(instance_type):
        sold = [t for t in candidates if snap.sells(t)]
        why = f"refused there: {snap.restricted[instance_type]}" if instance_type in snap.restricted else \
            _what_sells(snap)
        yield ConfigError(f"{path}.instance_type", f"{instance_type!r} is not offered in {region} ({why}); offered "
                          f"there for {pool.accelerator}: {_by_family(sold)}")
        return
    if cloud == "azure" and accelerators.azure_rdma(instance_type):
        yield ConfigError(f"{path}.instance_type", f"{instance_type!r} joins nodes over InfiniBand, and Sahab does "
                          "not set up RDMA on AKS (NVIDIA Network Operator with OFED, the RDMA shared device plugin, "
                          "the GPU operator's driver.rdma, the subscription's feature registration and an IPC_LOCK "
                          "exception in the teams' pod security): multi-node training there would fall back to TCP; "
                          f"allowed for {pool.accelerator}: {_listed(_plain_azure(pool.accelerator)) or 'none'}")
        return
    yield from _gpu_driver(cluster.kind, pool, path)
    yield from _efa(cluster, pool, instance_type, path)


def _efa(cluster: Cluster, pool: NodePool, instance_type: str, path: str) -> Problems:
    if cluster.kind != "eks":
        if pool.efa:
            yield ConfigError(f"{path}.efa", "EFA applies to EKS pools only")
        return
    if pool.efa and not resolve.efa_capable(instance_type):
        yield ConfigError(f"{path}.efa", f"{instance_type} has no EFA interface (EC2's instance data); EFA-capable "
                          f"sizes for {pool.accelerator}: {_listed(_efa_types(pool.accelerator)) or 'none'}")


def _pool_hosts(fleet: FleetConfig) -> Problems:
    """A server is a node of one pool, once."""
    owner: dict[str, str] = {}
    for i, pool in enumerate(fleet.node_pools):
        for j, host in enumerate(pool.hosts):
            if host in owner:
                which = "this pool" if owner[host] == pool.name else f"pool {owner[host]}"
                yield ConfigError(f"{ROOT}.node_pools[{i}].hosts[{j}]", f"host {validation.shown(host)} is "
                                  f"already in {which}; a server belongs to one pool")
            else:
                owner[host] = pool.name


def _one_driver_owner(fleet: FleetConfig) -> Problems:
    """One GPU operator installs drivers on all of a cluster's GPU nodes or on none of them (components.gpu_stack,
    components.kubernetes.gpu_operator): a pool that disagrees with the cluster's first GPU pool is refused."""
    first: dict[str, tuple[NodePool, str]] = {}
    named = _clusters_by_name(fleet)
    for i, pool in enumerate(fleet.node_pools):
        cluster = named.get(pool.cluster)
        if cluster is None or not pool.is_gpu:
            continue
        try:
            driver = gpu_stack.resolve(cluster.kind, pool.gpu_driver)
        except ValueError:
            continue  # refused with the pool itself
        if pool.cluster not in first:
            first[pool.cluster] = (pool, driver)
        elif gpu_stack.disagreeing(cluster.kind, [first[pool.cluster][1], driver]):
            other, theirs = first[pool.cluster]
            yield ConfigError(f"{ROOT}.node_pools[{i}].gpu_driver", f"{driver!r} differs from pool {other.name}'s "
                              f"{theirs!r} on cluster {pool.cluster}: one GPU operator serves every GPU pool of a "
                              f"cluster, installing the driver on all or none; allowed: {theirs!r}")


# ---- storage ---------------------------------------------------------------------------------------------------
def storage(fleet: FleetConfig) -> Problems:
    yield from _unique(fleet.storage.buckets, "bucket", f"{ROOT}.storage.buckets")
    for i, bucket in enumerate(fleet.storage.buckets):
        path = f"{ROOT}.storage.buckets[{i}]"
        if getattr(fleet.clouds, bucket.cloud) is None:
            yield ConfigError(f"{path}.cloud", f"a {bucket.cloud} bucket needs clouds.{bucket.cloud} to be set")
            continue
        if bucket.replicate_to is not None:
            yield from _replication(fleet, bucket, path)
        if bucket.geo_redundant:
            yield from _geo_redundancy(fleet, bucket, path)


def _replication(fleet: FleetConfig, bucket: Any, path: str) -> Problems:
    """An S3 replica: in another AWS Region of the residency list, of a versioned bucket (S3 replicates versions)."""
    if bucket.cloud != "aws":
        yield ConfigError(f"{path}.replicate_to", "replication applies to aws buckets; use geo_redundant for azure")
        return
    outside = list(_outside_residency(fleet, bucket.replicate_to, f"{path}.replicate_to"))
    yield from outside
    if not outside and not validation.AWS_REGION.match(bucket.replicate_to):
        yield ConfigError(f"{path}.replicate_to", f"{bucket.replicate_to!r} is not an AWS Region; allowed: an AWS "
                          f"Region of the residency list, e.g. me-central-1")
    if not bucket.versioning:
        yield ConfigError(f"{path}.versioning", "replication needs versioning on (S3 replicates object versions); "
                          "allowed: true, or no replicate_to")


def _geo_redundancy(fleet: FleetConfig, bucket: Any, path: str) -> Problems:
    """Geo-redundant Azure storage copies to the location's pair, which must stay in the residency list."""
    if bucket.cloud != "azure":
        yield ConfigError(f"{path}.geo_redundant", "geo_redundant applies to azure buckets only")
        return
    try:  # the storage account's own SKU choice (components.azure.storage_account) states the rule
        storage_sku(fleet.clouds.azure.location, True, fleet.residency.allowed_regions)
    except ValueError as err:
        yield ConfigError(f"{path}.geo_redundant", f"{err}; allowed: false, or add the pair to "
                          "residency.allowed_regions")


# ---- links and the deployer ------------------------------------------------------------------------------------
def links(fleet: FleetConfig) -> Problems:
    """The sites' links to the clouds, their gateways and the deployer (components.hybrid_config)."""
    clouds = {"aws": fleet.clouds.aws, "azure": fleet.clouds.azure}
    names: set[str] = set()
    for i, site in enumerate(fleet.sites):
        path = f"{ROOT}.sites[{i}]"
        yield from _site_networks(fleet, i, path)
        seen: set[str] = set()
        for j, link in enumerate(site.links):
            where = f"{path}.links[{j}]"
            if clouds[link.cloud] is None:
                yield ConfigError(f"{where}.cloud", f"{link.cloud!r} is not a cloud of this stack; set "
                                  f"clouds.{link.cloud} or remove the link")
            elif link.cloud in seen:
                yield ConfigError(f"{where}.cloud", f"site {site.name} already has a link to {link.cloud}; one link "
                                  "per cloud")
            else:
                yield from _link(site, link, where, path)
            seen.add(link.cloud)
            if link.type == "vpn" and i >= MAX_LINKED_SITES:  # components.hybrid_plan: tunnel addresses by index
                yield ConfigError(f"{where}.type", f"a VPN link of site {site.name}: the tunnel address plan serves "
                                  f"the first {MAX_LINKED_SITES} sites; allowed: a circuit link (direct-connect, "
                                  "expressroute), or list this site among the first")
        if site.links and not site.networks:
            yield ConfigError(f"{path}.networks", "a site with links needs its networks (the blocks that reach "
                              "the clouds), e.g. [10.10.0.0/16]")
        gateway = site.gateway
        if gateway is None:
            continue
        if gateway.terminates_on == "host" and gateway.host is None:
            yield ConfigError(f"{path}.gateway.host", "terminates_on: host needs the gateway host "
                              "({name, address}) Sahab converges")
        if gateway.terminates_on == "router" and gateway.host is not None:
            yield ConfigError(f"{path}.gateway.host", "only with terminates_on: host")
        if gateway.host is not None:
            if gateway.host.name in {h.name for h in site.hosts} or gateway.host.name in names:
                yield ConfigError(f"{path}.gateway.host.name", f"{gateway.host.name!r} is already a host name; "
                                  "the gateway host needs its own")
            names.add(gateway.host.name)
    yield from _deployer(fleet)


def _link(site: Site, link: Any, where: str, path: str) -> Problems:
    circuit = {"direct-connect": ("aws", "direct_connect_gateway_id"),
               "expressroute": ("azure", "expressroute_circuit_id")}
    if link.type == "vpn":
        if site.gateway is None:
            yield ConfigError(f"{path}.gateway", f"the VPN link to {link.cloud} needs the site's gateway "
                              "({public_ip, host} or terminates_on: router)")
        stray = [f for f in ("direct_connect_gateway_id", "expressroute_circuit_id", "authorization_key_secret")
                 if getattr(link, f)]
        if stray:
            yield ConfigError(f"{where}.{stray[0]}", "only with a circuit link (type direct-connect or expressroute)")
        return
    cloud, field = circuit[link.type]
    if link.cloud != cloud:
        yield ConfigError(f"{where}.type", f"{link.type} reaches {cloud}, not {link.cloud}; allowed for "
                          f"{link.cloud}: vpn, {'direct-connect' if link.cloud == 'aws' else 'expressroute'}")
        return
    if not getattr(link, field):
        yield ConfigError(f"{where}.{field}", f"required with type {link.type}: the existing circuit to attach")
    if link.routing != "bgp":
        yield ConfigError(f"{where}.routing", f"a {link.type} circuit exchanges routes over BGP; allowed: bgp")
    other = "expressroute_circuit_id" if link.type == "direct-connect" else "direct_connect_gateway_id"
    if getattr(link, other) or (link.type == "direct-connect" and link.authorization_key_secret):
        yield ConfigError(f"{where}.{other if getattr(link, other) else 'authorization_key_secret'}",
                          f"does not apply to type {link.type}")


def _site_networks(fleet: FleetConfig, index: int, path: str) -> Problems:
    """The site's servers and API VIPs lie inside its declared networks: they are what crosses the links."""
    site = fleet.sites[index]
    if not site.networks:
        return
    blocks = [ipaddress.ip_network(n) for n in site.networks]

    def inside(address: str) -> bool:
        ip = ipaddress.ip_address(address)
        return any(ip in b for b in blocks)

    for j, host in enumerate(site.hosts):
        if not inside(host.address):
            yield ConfigError(f"{path}.hosts[{j}].address", f"{host.address} is outside the site's networks "
                              f"({', '.join(site.networks)}); add its block to sites[{index}].networks")
    for cluster in fleet.clusters:
        if cluster.kind == "onprem" and cluster.site == site.name and cluster.control_plane_vip \
                and not inside(cluster.control_plane_vip):
            yield ConfigError(f"{path}.networks", f"cluster {cluster.name}'s control_plane_vip "
                              f"{cluster.control_plane_vip} is outside the site's networks")


def _deployer(fleet: FleetConfig) -> Problems:
    deployer = fleet.deployer
    if deployer is None:
        return
    path = f"{ROOT}.deployer"
    sites = {s.name: s for s in fleet.sites}
    borrowed = any(c.stack_reference for c in fleet.clusters)
    if deployer.site is None and not deployer.cidrs:
        yield ConfigError(path, "name the site the deployer is on (site), or the blocks it connects from (cidrs)")
        return
    if deployer.site is not None and deployer.site not in sites:
        if not borrowed:
            yield ConfigError(f"{path}.site", f"{deployer.site!r} is not a site; allowed: "
                              f"{', '.join(sites) or 'none (declare the site, or use cidrs)'}")
        return  # a site of the stack the clusters come from: readiness judges it with that stack's plan
    if deployer.site is not None:
        blocks = [ipaddress.ip_network(n) for n in sites[deployer.site].networks]
        if not blocks:
            yield ConfigError(f"{ROOT}.sites[{list(sites).index(deployer.site)}].networks",
                              "the deployer's site needs its networks (the blocks that reach the clouds)")
            return
        for k, block in enumerate(deployer.cidrs):
            net = ipaddress.ip_network(block)
            if not any(net.subnet_of(b) for b in blocks):
                yield ConfigError(f"{path}.cidrs[{k}]", f"{block} is outside site {deployer.site}'s networks "
                                  f"({', '.join(sites[deployer.site].networks)})")


# ---- workload and teams ----------------------------------------------------------------------------------------
def workload(fleet: FleetConfig) -> Problems:
    work, path = fleet.workload, f"{ROOT}.workload.teams"
    yield from _unique(work.teams, "team", path)
    for i, team in enumerate(work.teams):
        problem = validation.team_namespace(team.name)
        if problem:
            yield ConfigError(f"{path}[{i}].name", f"{problem}; a team's name is its namespace")
    if work.enabled and not work.teams:
        yield ConfigError(path, "the workload is enabled but has no team to run it; add a team or set "
                          "workload.enabled: false")
    teams = [t.name for t in work.teams]
    if work.team is not None and work.team not in teams:
        yield ConfigError(f"{ROOT}.workload.team", f"{work.team!r} is not a team; allowed: {', '.join(teams)}")
    if work.enabled and (work.team is None or work.team in teams):
        yield from _store_keys(fleet, work.team or (teams[0] if teams else None))
    if work.enabled:
        for i, cluster in enumerate(fleet.clusters):
            if validation.older_than(cluster.kubernetes_version, validation.TRAINING_MIN_KUBERNETES):
                yield ConfigError(f"{ROOT}.clusters[{i}].kubernetes_version",
                                  f"{cluster.kubernetes_version} cannot run the workload's training Jobs (their "
                                  f"successPolicy needs {validation.TRAINING_MIN_KUBERNETES} or later); allowed: "
                                  f"{validation.TRAINING_MIN_KUBERNETES} or later, or workload.enabled: false")


def _store_keys(fleet: FleetConfig, team: str | None) -> Problems:
    """The training team writes its checkpoints to the object store of every site it trains on, with its own key
    (components.checkpoint_build): a site whose store has none for it is refused."""
    for i, site in enumerate(fleet.sites):
        store = site.object_store
        trains = [c.name for c in fleet.clusters if c.kind == "onprem" and not c.stack_reference
                  and c.site == site.name]
        if team is not None and store is not None and trains and team not in store.team_credentials:
            yield ConfigError(f"{ROOT}.sites[{i}].object_store.team_credentials", f"team {team} trains on cluster "
                              f"{trains[0]} at site {site.name} and has no key for its store; allowed: "
                              f"team_credentials.{team} naming the team's own key, limited by the store to "
                              f"{store.bucket}/{team}/")


# ---- names the clouds see --------------------------------------------------------------------------------------
def names(fleet: FleetConfig) -> Problems:
    """Cloud names Sahab derives from several settings, at their final length. Each mirrors how the component
    names the resource (Pulumi auto-naming adds 8 characters), so the cloud never sees a name it refuses."""
    v = validation

    def limit(path: str, what: str, length: int, maximum: int, parts: str) -> Problems:
        if length > maximum:
            yield ConfigError(path, f"the {what} derived from {parts} would be {length} characters; the cloud "
                              f"allows {maximum}: shorten them by {length - maximum}")

    name = fleet.name
    created = [(i, c) for i, c in enumerate(fleet.clusters) if not c.stack_reference and usable(fleet, c)]
    # components.aws.network: a VPC, and its flow-logs role, per region with an EKS cluster this stack creates.
    for region in sorted({fleet.region_of(c) for _, c in created if c.kind == "eks"}):
        yield from limit(f"{ROOT}.name", f"IAM role name for the {region} flow logs",
                         v.autonamed(f"{name}-{region}-flow-logs-role"), v.IAM_ROLE_MAX,
                         "the fleet name and the region")
    for i, cluster in created:
        path, base = f"{ROOT}.clusters[{i}].name", f"{name}-{cluster.name}"
        parts = "the fleet name and the cluster name"
        if cluster.kind == "eks":
            yield from limit(path, "EKS cluster name", len(base), v.EKS_CLUSTER_MAX, parts)
            # components.aws: {base}-cluster-role, -node-role, -vpc-cni-role, -ebs-csi-role, -autoscaler-role (longest)
            yield from limit(path, "IAM role name", v.autonamed(f"{base}-autoscaler-role"), v.IAM_ROLE_MAX, parts)
            if fleet.workload.enabled:  # components.aws.checkpoint_access: {base}-{team}-checkpoints-role
                for j, team in enumerate(fleet.workload.teams):
                    yield from limit(f"{ROOT}.workload.teams[{j}].name", f"checkpoint IAM role name on {cluster.name}",
                                     v.autonamed(f"{base}-{team.name}-checkpoints-role"), v.IAM_ROLE_MAX,
                                     "the fleet, cluster and team names")
        if cluster.kind == "aks":
            yield from limit(path, "AKS cluster name", len(base), v.AKS_CLUSTER_MAX, parts)
            yield from limit(path, "AKS DNS prefix", len(base), v.AKS_DNS_PREFIX_MAX, parts)
    named = _clusters_by_name(fleet)
    kinds = [(i, pool, named[pool.cluster].kind) for i, pool in enumerate(fleet.node_pools) if pool.cluster in named]
    for i, pool, kind in kinds:
        if kind == "eks":  # node_group_name_prefix=f"{pool.name}-"
            yield from limit(f"{ROOT}.node_pools[{i}].name", "EKS node group name", len(pool.name) + 1 +
                             v.EKS_NODEGROUP_PREFIX_SUFFIX, v.EKS_NODEGROUP_MAX, "the pool name")
    aks_pools: dict[str, list[tuple[int, str]]] = {}  # components.pool_plan.aks_pool_names, per cluster
    for i, pool, kind in kinds:
        if kind == "aks":
            aks_pools.setdefault(pool.cluster, []).append((i, pool.name))
    clashes = [(pools[k][0], aks, other) for pools in aks_pools.values()
               for k, aks, other in v.aks_pool_clashes([name for _, name in pools])]
    for i, aks, other in sorted(clashes, key=lambda clash: clash[0]):  # in the order of the pools
        yield ConfigError(f"{ROOT}.node_pools[{i}].name", f"its AKS agent pool name {aks!r} is also that of "
                          f"{f'pool {other}' if other else 'the system pool'}; rename one of them")
    for i, bucket in enumerate(fleet.storage.buckets):
        if bucket.cloud != "aws":
            continue  # Azure storage account names are hashed down to 24 characters (components.azure.plan)
        path, base, parts = f"{ROOT}.storage.buckets[{i}].name", f"{name}-{bucket.name}", "the fleet and bucket names"
        yield from limit(path, "S3 bucket name", v.autonamed(f"{base}-bucket"), v.S3_BUCKET_MAX, parts)
        if bucket.replicate_to:
            yield from limit(path, "replica S3 bucket name", v.autonamed(f"{base}-replica-bucket"), v.S3_BUCKET_MAX,
                             parts)
            yield from limit(path, "replication IAM role name", v.autonamed(f"{base}-replication-role"),
                             v.IAM_ROLE_MAX, parts)


# ---- burst -----------------------------------------------------------------------------------------------------
def burst(fleet: FleetConfig) -> Problems:
    """The manager is an on-prem cluster; workers are cloud clusters in the residency regions with pools of
    this stack to scale (a worker whose region is outside the list is refused with the cluster itself)."""
    if fleet.burst is None:
        return
    spec, path = fleet.burst, f"{ROOT}.burst"
    named = _clusters_by_name(fleet)
    manager = named.get(spec.manager)
    if manager is None or manager.kind != "onprem":
        onprem = [c.name for c in fleet.clusters if c.kind == "onprem"]
        yield ConfigError(f"{path}.manager", f"{spec.manager!r} is not an onprem cluster of this stack; "
                          f"allowed: {', '.join(onprem) or 'none (add the manager with stack_reference)'}")
    elif validation.older_than(manager.kubernetes_version, validation.MULTIKUEUE_MANAGER_MIN_KUBERNETES):
        index = next(i for i, c in enumerate(fleet.clusters) if c.name == spec.manager)
        yield ConfigError(f"{ROOT}.clusters[{index}].kubernetes_version",
                          f"{manager.kubernetes_version} cannot be the MultiKueue manager: its Job controller ignores "
                          f"spec.managedBy only from {validation.MULTIKUEUE_MANAGER_MIN_KUBERNETES}")
    if not spec.workers:
        yield ConfigError(f"{path}.workers", "at least one eks/aks worker cluster")
    cloud = [c.name for c in fleet.clusters if c.kind in ("eks", "aks")]
    for j, worker in enumerate(spec.workers):
        if worker not in cloud:
            yield ConfigError(f"{path}.workers[{j}]", f"{worker!r} is not an eks/aks cluster of this stack; "
                              f"allowed: {', '.join(cloud)}")
        elif usable(fleet, named[worker]) and not fleet.pools_of(worker):
            yield ConfigError(f"{path}.workers[{j}]", f"{worker!r} has no node pools in this stack to burst onto")
        elif usable(fleet, named[worker]) and not named[worker].stack_reference and fleet.workload.enabled:
            # Its Jobs write to this stack's own store (another stack's worker: that stack's, checked at plan time).
            its_cloud = fleet.cloud_of(named[worker])
            if not any(b.purpose == "checkpoints" and b.cloud == its_cloud for b in fleet.storage.buckets):
                yield ConfigError(f"{path}.workers[{j}]", f"{worker!r} is built by this stack, which keeps no "
                                  f"`checkpoints` bucket on {its_cloud}: a burst run would lose its checkpoints with "
                                  f"its nodes; add one to storage.buckets, or set the cluster's stack_reference")
    if len(set(spec.workers)) != len(spec.workers):
        yield ConfigError(f"{path}.workers", "each worker once")


# ---- zones (on the fleet with its instance types resolved) -----------------------------------------------------
def zones(fleet: FleetConfig) -> list[ConfigError]:
    """Every cloud pool's zones are named once, sell its instance type and lie in its network; an EFA pool takes
    one."""
    problems: list[ConfigError] = []
    vpc: dict[str, tuple[str, ...]] = {}
    for region in resolve.vpc_regions(fleet):
        named = resolve.named_zones(fleet, region)
        snap, count = offerings.snapshot("aws", region), fleet.clouds.aws.az_count
        if len(named) > count:
            problems.append(ConfigError(f"{ROOT}.clouds.aws.az_count", f"the pools of {region} name zones "
                                        f"{', '.join(named)}; the VPC spans {count}; allowed: at least {len(named)} "
                                        f"(at most {len(snap.zones)})"))
        else:
            vpc[region] = resolve.vpc_zones(fleet, region)
    for i, pool in enumerate(fleet.node_pools):
        cluster, path = fleet.cluster(pool.cluster), f"{ROOT}.node_pools[{i}]"
        repeated = sorted({z for z in pool.zones if pool.zones.count(z) > 1})
        if repeated and cluster.kind in ("eks", "aks"):
            problems.append(_repeated_zones(fleet, cluster, repeated, path))
        elif cluster.kind == "eks":
            region = fleet.region_of(cluster)
            if region in vpc or cluster.stack_reference:
                problems += _eks_zones(fleet, cluster, pool, vpc.get(region), path)
        elif cluster.kind == "aks":
            problems += _aks_zones(fleet, cluster, pool, path)
    return problems


def _repeated_zones(fleet: FleetConfig, cluster: Cluster, repeated: list[str], path: str) -> ConfigError:
    """A zone named twice is a typo (which zone was meant?), not a wish for more nodes there: refused before any
    other zone rule reads the list."""
    region = fleet.region_of(cluster)
    if cluster.kind == "eks":
        allowed = f"of {region}'s zone IDs {', '.join(offerings.snapshot('aws', region).zones)}"
    else:
        allowed = f"of {region}'s zone numbers {', '.join(LOCATION_ZONES.get(region, ())) or 'none'}"
    what = "is listed more than once" if len(repeated) == 1 else "are listed more than once"
    return ConfigError(f"{path}.zones", f"{', '.join(repeated)} {what}; allowed: each zone once, {allowed}")


def _eks_zones(fleet: FleetConfig, cluster: Cluster, pool: NodePool, vpc: tuple[str, ...] | None,
               path: str) -> Problems:
    region = fleet.region_of(cluster)
    snap = offerings.snapshot("aws", region)
    offered = snap.zones_selling([pool.instance_type])
    unknown = [z for z in pool.zones if z not in snap.zones]
    if unknown:
        yield ConfigError(f"{path}.zones", f"{', '.join(unknown)} is not a zone ID of {region}; its zones: "
                          f"{', '.join(snap.zones)}")
        return
    if pool.efa and len(pool.zones) > 1:
        yield ConfigError(f"{path}.zones", "an EFA pool runs in one zone (its cluster placement group's); name one "
                          f"of {', '.join(offered)}, or set efa: false")
        return
    wanted = resolve.wanted_zones(snap, pool, vpc)
    missing = [z for z in wanted if z not in offered]
    if missing or not wanted:
        yield ConfigError(f"{path}.zones" if pool.zones else f"{path}.instance_type",
                          f"node pool {pool.name}: {pool.instance_type} is offered in {region} zones "
                          f"{', '.join(offered) or 'none'}; zones wanted: {', '.join(wanted) or 'none'} "
                          f"({_what_sells(snap)})")
        return
    if vpc is not None and any(z not in vpc for z in wanted):
        outside = [z for z in wanted if z not in vpc]
        yield ConfigError(f"{path}.zones", f"node pool {pool.name} wants {', '.join(outside)}, outside the VPC's "
                          f"zones {', '.join(vpc)} (raise clouds.aws.az_count)")


def _aks_zones(fleet: FleetConfig, cluster: Cluster, pool: NodePool, path: str) -> Problems:
    location = fleet.region_of(cluster)
    if location not in ZONAL_LOCATIONS:
        if pool.zones:
            yield ConfigError(f"{path}.zones", f"{location} has no availability zones; allowed: none")
        return
    zones = LOCATION_ZONES[location]
    wrong = [z for z in pool.zones if z not in zones]
    if wrong:
        what = "is not an availability zone" if len(wrong) == 1 else "are not availability zones"
        yield ConfigError(f"{path}.zones", f"{', '.join(wrong)} {what} of {location}; allowed: zone numbers "
                          f"{', '.join(zones)}")
        return
    snap = offerings.snapshot("azure", location)
    if snap is None:  # Azure's SKUs are not in the repository: placement is the pool's, or regional
        return
    offered = snap.offered.get(pool.instance_type, ())
    if any(z not in offered for z in pool.zones):
        yield ConfigError(f"{path}.zones", f"node pool {pool.name}: {pool.instance_type} is offered in {location} "
                          f"zones {', '.join(offered) or 'none'}; zones wanted: {', '.join(pool.zones)} "
                          f"({_what_sells(snap)})")


# ---- placement (on the fleet with its pools resolved) ----------------------------------------------------------
def placement(fleet: FleetConfig) -> list[ConfigError]:
    """What a training pod of each pool asks for fits the pool's nodes."""
    problems = []
    for i, pool in enumerate(fleet.node_pools):
        path = f"{ROOT}.node_pools[{i}]"
        if pool.gpus_per_worker is not None and not pool.is_gpu:
            problems.append(ConfigError(f"{path}.gpus_per_worker", "applies to GPU pools only"))
        elif pool.is_gpu and pool.worker_gpus > (pool.gpus_per_node or 1):
            problems.append(ConfigError(f"{path}.gpus_per_worker", f"{pool.worker_gpus} GPUs per worker on nodes "
                                        f"with {pool.gpus_per_node}; allowed: 1 to {pool.gpus_per_node}"))
    return problems


# ---- how the messages name what is sold ------------------------------------------------------------------------
def _efa_types(accelerator: str) -> list[str]:
    return [t for t in accelerators.instance_types("aws", accelerator) if resolve.efa_capable(t)]


def _plain_azure(accelerator: str) -> list[str]:
    return [t for t in accelerators.instance_types("azure", accelerator) if not accelerators.azure_rdma(t)]


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


def _catalog_types(cloud: str, accelerator: str) -> str:
    if cloud == "aws":
        types = accelerators.instance_types("aws", accelerator)
        if len(types) <= 16:
            return ", ".join(types)
        families = ", ".join(accelerators.CATALOG[accelerator].aws_families)
        return f"a size the family sells in one of the families {families}, e.g. {types[2]}"
    if accelerator == "cpu":
        series = ", ".join(s.label for s in accelerators.AZURE_CPU_SERIES)
        return (f"a size of the series {series} (e.g. Standard_D8s_v5, Standard_E16ads_v5); other series (A, B, "
                "Dv6 and later, Arm p sizes, isolated i and constrained-vCPU sizes, L, M, ...) are not in the catalog")
    return ", ".join(accelerators.CATALOG[accelerator].azure_series)

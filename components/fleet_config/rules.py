"""The fleet's cross-field rules: what no single field can say alone (names that refer to other entries,
sizes, regions against the residency list, derived cloud names). Each raises ConfigError at its config path."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from components import validation
from components.errors import ConfigError
from components.fleet_config.clouds import RESTRICTED_LOCATIONS
from components.fleet_config.clusters import Cluster
from components.fleet_config.pools import NodePool
from components.fleet_config.root import FleetConfig
from components.fleet_config.sites import Site
from components.fleet_config.types import ROOT, config_path
from components.fleet_config.workload import Workload
from components.network_plan import MAX_AKS_CLUSTERS_PER_VNET, plan_api_server_subnets


def unique(items: Iterable[Any], what: str, path: str) -> None:
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item.name in seen:
            raise ConfigError(f"{path}[{i}].name", f"duplicate {what} name {item.name!r}; names must be unique")
        seen.add(item.name)



def check_gpu_sharing(pool: NodePool, path: str) -> None:
    """Settings the NVIDIA device plugin cannot schedule: a time-sliced GPU is handed out one slice per pod
    (failRequestsGreaterThanOne), and MIG `mixed` exposes no plain `nvidia.com/gpu` to share."""
    if pool.time_slicing_replicas and pool.gpus_per_worker and pool.gpus_per_worker > 1:
        raise ConfigError(f"{path}.gpus_per_worker", f"{pool.gpus_per_worker} GPUs per worker on a time-sliced "
                          "pool: the device plugin refuses requests over one slice; allowed: 1 (or unset)")
    if pool.time_slicing_replicas and pool.mig_strategy == "mixed":
        raise ConfigError(f"{path}.time_slicing_replicas", "time-slicing shares nvidia.com/gpu, which MIG "
                          "strategy `mixed` does not offer; allowed: mig_strategy none or single")


def check_worker_gpus(pool: NodePool, path: str) -> None:
    if pool.gpus_per_worker is not None and not pool.is_gpu:
        raise ConfigError(f"{path}.gpus_per_worker", "applies to GPU pools only")
    if pool.is_gpu and pool.worker_gpus > (pool.gpus_per_node or 1):
        raise ConfigError(f"{path}.gpus_per_worker", f"{pool.worker_gpus} GPUs per worker on nodes with "
                          f"{pool.gpus_per_node}; allowed: 1 to {pool.gpus_per_node}")


def check_burst(fleet: FleetConfig) -> None:
    """The manager is an on-prem cluster; workers are cloud clusters in the residency regions with pools of
    this stack to scale (a worker whose region is outside the list is refused with the cluster itself)."""
    burst, path = fleet.burst, f"{ROOT}.burst"
    names = {c.name: c for c in fleet.clusters}
    if burst.manager not in names or names[burst.manager].kind != "onprem":
        onprem = [c.name for c in fleet.clusters if c.kind == "onprem"]
        raise ConfigError(f"{path}.manager", f"{burst.manager!r} is not an onprem cluster of this stack; "
                          f"allowed: {', '.join(onprem) or 'none (add the manager with stack_reference)'}")
    manager_version = names[burst.manager].kubernetes_version
    if validation.older_than(manager_version, validation.MULTIKUEUE_MANAGER_MIN_KUBERNETES):
        index = next(i for i, c in enumerate(fleet.clusters) if c.name == burst.manager)
        raise ConfigError(f"{ROOT}.clusters[{index}].kubernetes_version",
                          f"{manager_version} cannot be the MultiKueue manager: its Job controller ignores "
                          f"spec.managedBy only from {validation.MULTIKUEUE_MANAGER_MIN_KUBERNETES}")
    if not burst.workers:
        raise ConfigError(f"{path}.workers", "at least one eks/aks worker cluster")
    cloud = [c.name for c in fleet.clusters if c.kind in ("eks", "aks")]
    for j, worker in enumerate(burst.workers):
        if worker not in cloud:
            raise ConfigError(f"{path}.workers[{j}]", f"{worker!r} is not an eks/aks cluster of this stack; "
                              f"allowed: {', '.join(cloud)}")
        if fleet.region_of(names[worker]) not in fleet.residency.allowed_regions:
            raise ConfigError(f"{path}.workers[{j}]", f"{worker!r} is outside the residency list")
        if not fleet.pools_of(worker):
            raise ConfigError(f"{path}.workers[{j}]", f"{worker!r} has no node pools in this stack to burst onto")
    if len(set(burst.workers)) != len(burst.workers):
        raise ConfigError(f"{path}.workers", "each worker once")


def unique_addresses(fleet: FleetConfig) -> None:
    """One server, one entry: two hosts with one address would be one machine joined twice."""
    seen: dict[str, str] = {}
    for i, site in enumerate(fleet.sites):
        for j, host in enumerate(site.hosts):
            address = str(ipaddress.ip_address(host.address))  # one spelling per address (IPv6 forms differ)
            if address in seen:
                raise ConfigError(f"{ROOT}.sites[{i}].hosts[{j}].address",
                                  f"{host.address} is already the address of {seen[address]}; each host needs its own")
            seen[address] = f"host {host.name} of site {site.name}"


def inside_node_networks(site: Site, path: str) -> None:
    """With node_networks set, a host outside them could not reach the others through their firewalls."""
    if not site.node_networks:
        return
    networks = [ipaddress.ip_network(n) for n in site.node_networks]
    for j, host in enumerate(site.hosts):
        if not any(ipaddress.ip_address(host.address) in n for n in networks):
            raise ConfigError(f"{path}.hosts[{j}].address", f"{host.address} is outside the site's node_networks "
                              f"({', '.join(site.node_networks)}); the other nodes' firewalls would drop it")


def check_aks_per_vnet(fleet: FleetConfig) -> None:
    """A location's VNet holds a node subnet per AKS cluster in three quarters, private endpoints in the last
    (components.network_plan)."""
    seen: dict[str, int] = {}
    for i, cluster in enumerate(fleet.clusters):
        if cluster.kind != "aks" or cluster.stack_reference:
            continue
        location = cluster.location or fleet.clouds.azure.location
        seen[location] = seen.get(location, 0) + 1
        if seen[location] > MAX_AKS_CLUSTERS_PER_VNET:
            raise ConfigError(f"{ROOT}.clusters[{i}]", f"at most {MAX_AKS_CLUSTERS_PER_VNET} AKS clusters share the "
                              f"VNet of {location}; put this one in another allowed location or another stack")
        try:
            plan_api_server_subnets(fleet.clouds.azure.vnet_cidr, ["x"] * seen[location])
        except ValueError as err:
            raise ConfigError(f"{ROOT}.clouds.azure.vnet_cidr", str(err)) from None


def check_region_access(fleet: FleetConfig, cluster: Cluster, path: str) -> None:
    """A cluster in a location Microsoft opens only on request says the subscription has that access."""
    region = fleet.region_of(cluster) if cluster.kind != "onprem" else None
    if cluster.region_access_granted and region not in RESTRICTED_LOCATIONS:
        raise ConfigError(f"{path}.region_access_granted", f"applies to clusters in a restricted location "
                          f"({', '.join(RESTRICTED_LOCATIONS)}); {region or 'an on-prem cluster'} is not one")
    if region in RESTRICTED_LOCATIONS and not cluster.region_access_granted and not cluster.stack_reference:
        raise ConfigError(f"{path}.region_access_granted", f"{RESTRICTED_LOCATIONS[region]}: request access for the "
                          "subscription (an Azure support request, \"Region access\"), then set "
                          "region_access_granted: true")


def check_public_endpoint(cluster: Cluster, path: str) -> None:
    if cluster.kind == "onprem" and (cluster.public_endpoint or cluster.public_endpoint_cidrs):
        raise ConfigError(f"{path}.public_endpoint", "applies to eks and aks clusters only")
    if cluster.public_endpoint_cidrs and not cluster.public_endpoint:
        raise ConfigError(f"{path}.public_endpoint_cidrs", "only used with public_endpoint: true")
    if cluster.public_endpoint and not cluster.public_endpoint_cidrs and not cluster.stack_reference:
        raise ConfigError(f"{path}.public_endpoint_cidrs", "public_endpoint: true needs the IPv4 ranges that may "
                          "reach the API server, e.g. [203.0.113.0/24]; an endpoint open to 0.0.0.0/0 is not allowed")


def check_labels_and_taints(pool: NodePool, path: str) -> None:
    """Node labels and taints in the grammar every target shares (kubelet flags, EKS, AKS, the Node object)."""
    for key, value in pool.labels.items():
        where = config_path(("labels", key), path)
        problem = validation.node_label_key(key)
        if problem:
            raise ConfigError(where, f"label key {validation.shown(key)} is not allowed; allowed: {problem}")
        problem = validation.label_value(value)
        if problem:
            raise ConfigError(where, f"label value {validation.shown(value)} is not allowed; allowed: {problem}")
    builtin = len(pool.taints) - len(pool.extra_taints)  # the GPU taint comes first
    seen: set[tuple[str, str]] = set()
    for j, taint in enumerate(pool.taints):
        if (taint.key, taint.effect) in seen:
            raise ConfigError(f"{path}.extra_taints[{j - builtin}].key", f"the pool already has a {taint.key} "
                              f"taint with effect {taint.effect}; Kubernetes allows one per key and effect")
        seen.add((taint.key, taint.effect))


def check_pool_hosts(fleet: FleetConfig) -> None:
    """A server is a node of one pool, once."""
    owner: dict[str, str] = {}
    for i, pool in enumerate(fleet.node_pools):
        for j, host in enumerate(pool.hosts):
            if host in owner:
                which = "this pool" if owner[host] == pool.name else f"pool {owner[host]}"
                raise ConfigError(f"{ROOT}.node_pools[{i}].hosts[{j}]", f"host {validation.shown(host)} is "
                                  f"already in {which}; a server belongs to one pool")
            owner[host] = pool.name


def check_store_teams(fleet: FleetConfig) -> None:
    """A site's store keys belong to teams of the fleet."""
    teams = [t.name for t in fleet.workload.teams]
    for i, site in enumerate(fleet.sites):
        for team in site.object_store.team_credentials if site.object_store else ():
            if team not in teams:
                raise ConfigError(config_path(("sites", i, "object_store", "team_credentials", team)),
                                  f"{team!r} is not a team; allowed: {', '.join(teams) or 'none'}")


def check_teams(workload: Workload) -> None:
    path = f"{ROOT}.workload.teams"
    unique(workload.teams, "team", path)
    for i, team in enumerate(workload.teams):
        problem = validation.team_namespace(team.name)
        if problem:
            raise ConfigError(f"{path}[{i}].name", f"{problem}; a team's name is its namespace")
    if workload.enabled and not workload.teams:
        raise ConfigError(path, "the workload is enabled but has no team to run it; add a team or set "
                          "workload.enabled: false")


def check_cloud_names(fleet: FleetConfig) -> None:
    """Cloud names Sahab derives from several settings, at their final length. Each mirrors how the component
    names the resource (Pulumi auto-naming adds 8 characters), so the cloud never sees a name it refuses."""
    v = validation

    def limit(path: str, what: str, length: int, maximum: int, parts: str) -> None:
        if length > maximum:
            raise ConfigError(path, f"the {what} derived from {parts} would be {length} characters; the cloud "
                              f"allows {maximum}: shorten them by {length - maximum}")

    name = fleet.name
    created = [(i, c) for i, c in enumerate(fleet.clusters) if not c.stack_reference]
    # components.aws.network: a VPC, and its flow-logs role, per region with an EKS cluster this stack creates.
    for region in sorted({fleet.region_of(c) for _, c in created if c.kind == "eks"}):
        limit(f"{ROOT}.name", f"IAM role name for the {region} flow logs",
              v.autonamed(f"{name}-{region}-flow-logs-role"), v.IAM_ROLE_MAX, "the fleet name and the region")
    for i, cluster in created:
        path, base = f"{ROOT}.clusters[{i}].name", f"{name}-{cluster.name}"
        parts = "the fleet name and the cluster name"
        if cluster.kind == "eks":
            limit(path, "EKS cluster name", len(base), v.EKS_CLUSTER_MAX, parts)
            # components.aws: {base}-cluster-role, -node-role, -vpc-cni-role, -ebs-csi-role, -autoscaler-role (longest)
            limit(path, "IAM role name", v.autonamed(f"{base}-autoscaler-role"), v.IAM_ROLE_MAX, parts)
            if fleet.workload.enabled:  # components.aws.checkpoint_access: {base}-{team}-checkpoints-role
                for j, team in enumerate(fleet.workload.teams):
                    limit(f"{ROOT}.workload.teams[{j}].name", f"checkpoint IAM role name on {cluster.name}",
                          v.autonamed(f"{base}-{team.name}-checkpoints-role"), v.IAM_ROLE_MAX,
                          "the fleet, cluster and team names")
        if cluster.kind == "aks":
            limit(path, "AKS cluster name", len(base), v.AKS_CLUSTER_MAX, parts)
            limit(path, "AKS DNS prefix", len(base), v.AKS_DNS_PREFIX_MAX, parts)
    clusters = {c.name: c for c in fleet.clusters}
    for i, pool in enumerate(fleet.node_pools):
        if clusters[pool.cluster].kind == "eks":  # node_group_name_prefix=f"{pool.name}-"
            limit(f"{ROOT}.node_pools[{i}].name", "EKS node group name", len(pool.name) + 1 +
                  v.EKS_NODEGROUP_PREFIX_SUFFIX, v.EKS_NODEGROUP_MAX, "the pool name")
    aks_names: dict[tuple[str, str], str] = {}  # components.pool_plan.aks_pool_names, per cluster
    for i, pool in enumerate(fleet.node_pools):
        if clusters[pool.cluster].kind != "aks":
            continue
        path, aks = f"{ROOT}.node_pools[{i}].name", v.aks_agent_pool_name(pool.name)  # a Name always has one
        clash = aks_names.get((pool.cluster, aks)) or ("the system pool" if aks == v.AKS_SYSTEM_POOL else None)
        if clash:
            raise ConfigError(path, f"its AKS agent pool name {aks!r} is also that of {clash}; rename one of them")
        aks_names[(pool.cluster, aks)] = f"pool {pool.name}"
    for i, bucket in enumerate(fleet.storage.buckets):
        if bucket.cloud != "aws":
            continue  # Azure storage account names are hashed down to 24 characters (components.azure.plan)
        path, base, parts = f"{ROOT}.storage.buckets[{i}].name", f"{name}-{bucket.name}", "the fleet and bucket names"
        limit(path, "S3 bucket name", v.autonamed(f"{base}-bucket"), v.S3_BUCKET_MAX, parts)
        if bucket.replicate_to:
            limit(path, "replica S3 bucket name", v.autonamed(f"{base}-replica-bucket"), v.S3_BUCKET_MAX, parts)
            limit(path, "replication IAM role name", v.autonamed(f"{base}-replication-role"), v.IAM_ROLE_MAX, parts)


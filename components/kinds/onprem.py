"""On-prem: kubeadm clusters on the sites' own servers, converged by Ansible (components.onprem).

Its nodes are the sites' hosts, which declare their own hardware (no node-type catalog); its storage is LUKS
volumes behind Sahab's local-path provisioner; its registry is the sites' own mirror, which Sahab points
containerd at; its checkpoint store the site's S3-compatible object store with per-team keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pulumi
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import ROOT, secret_config
from sahab.components.fleet_config import OnpremCluster as OnpremClusterConfig  # the config section of on-prem clusters
from sahab.components.gpu_stack import GpuStack, Owners
from sahab.components.kinds import ClusterComponent, KindSpec, Registry, StorageClass
from sahab.components.kubernetes.common import ENCRYPTION_ANNOTATION
from sahab.components.registry_config import MirrorRegistry

if TYPE_CHECKING:
    from sahab.components.artifacts import Artifact, Upstream
    from sahab.components.fleet import Fleet
    from sahab.components.fleet_config import FleetConfig

NAME = "onprem"


def build(fleet: Fleet) -> dict[str, ClusterComponent]:
    """kubeadm clusters on the sites' servers and their node pools, converged by Ansible. The SSH key is the
    site's secret setting when the stack has one, else the operator's ssh-agent."""
    from sahab.components.onprem.cluster import OnPremCluster
    from sahab.components.onprem.from_config import cluster_args, pool_args
    from sahab.components.onprem.node_pool import OnPremNodePool

    built: dict[str, ClusterComponent] = {}
    for cluster in (c for c in fleet.config.clusters if c.kind == NAME and not c.stack_reference):
        key = secret_config(fleet.config.site(cluster.site).ssh_private_key_secret)
        control_plane = OnPremCluster(f"{fleet.fleet_name}-{cluster.name}", cluster_args(fleet.config, cluster, key,
                                                                                   digests=fleet.digests),
                                      opts=pulumi.ResourceOptions(parent=fleet))
        built[cluster.name] = control_plane
        for pool in fleet.config.pools_of(cluster.name):
            fleet.node_pools[pool.name] = OnPremNodePool(
                f"{fleet.fleet_name}-{pool.name}", pool_args(fleet.config, pool, key, control_plane.data_volume_keys,
                                                     digests=fleet.digests),
                opts=pulumi.ResourceOptions(parent=fleet, depends_on=[control_plane]))
            fleet.export_pool(pool.name, cluster.name, NAME, pool.name)
        fleet.exports.setdefault("onpremClusters", {})[cluster.name] = {
            "site": cluster.site, "endpoint": control_plane.endpoint, "failedHosts": control_plane.failed_hosts}
        fleet.exports.setdefault("kubeconfigs", {})[cluster.name] = control_plane.kubeconfig
    return built


def storage_parameters(args: Any, key: Any) -> dict:
    """Local directories on the node's LUKS volume: they cannot grow or move between nodes, and
    WaitForFirstConsumer puts the volume on the pod's node."""
    from sahab.components.kubernetes.storage import ONPREM_PROVISIONER

    return {"provisioner": ONPREM_PROVISIONER, "parameters": {"nodePath": args.onprem_volume_path}}


def pulls_through(upstream: Upstream, credentials: Mapping[str, Any], airgapped: bool) -> bool:
    """The mirror is taken to proxy its upstreams (a Harbor proxy cache, distribution's proxy mode) unless a site
    is airgapped: then everything is seeded."""
    return not airgapped


def checkpoint_store(fleet: Fleet, cluster_name: str, team: str) -> Any:
    """On-prem, with the site's object store set: the team's own key (limited by the store to the team's prefix) in
    a Secret of the team's namespace (components.onprem.checkpoint_access)."""
    from sahab.components.onprem.checkpoint_access import CheckpointAccess, CheckpointAccessArgs

    cluster = fleet.config.cluster(cluster_name)
    index, site = next(((i, s) for i, s in enumerate(fleet.config.sites) if s.name == cluster.site),
                       (None, None))
    if site is None or site.object_store is None:
        return None
    store = site.object_store
    where = f"{ROOT}.sites[{index}].object_store.team_credentials"
    credentials = store.team_credentials.get(team)
    if credentials is None:
        raise ConfigError(where, f"team {team} trains on cluster {cluster.name} at site {site.name} and has no key "
                          f"for its store; allowed: team_credentials.{team} naming the team's own key, limited "
                          f"by the store to {store.bucket}/{team}/")
    keys = {}
    for name in ("access_key_id_secret", "secret_access_key_secret"):
        setting = getattr(credentials, name)
        keys[name] = secret_config(setting)
        if keys[name] is None:
            raise ConfigError(f"{where}.{team}.{name}",
                              f"names the secret setting sahab:{setting}, which the stack does not set; "
                              f"set it with `pulumi config set --secret {setting} <value>`")
    return CheckpointAccess(f"{fleet.fleet_name}-{cluster.name}-{team}-checkpoints", CheckpointAccessArgs(
        namespace=team, store=store, access_key_id=keys["access_key_id_secret"],
        secret_access_key=keys["secret_access_key_secret"]),
        opts=pulumi.ResourceOptions(parent=fleet, depends_on=[fleet.platforms[cluster.name]],
                                    providers={"kubernetes": fleet.k8s_providers[cluster.name]}))


def node_artifacts(fleet: FleetConfig, clusters: list[OnpremClusterConfig]) -> list[Artifact]:
    """kubeadm's sandbox (pause) image on every node, and kube-vip where a cluster has a control-plane VIP."""
    from sahab.components.artifacts import components_of

    found = components_of(NAME)
    if not any(c.control_plane_vip for c in clusters):
        found = [a for a in found if a.name != "kube-vip"]
    return found


SPEC = KindSpec(
    name=NAME, cloud=None, cluster_model=OnpremClusterConfig, network=lambda fleet: None, node_types=None, build=build,
    gpu_stack=GpuStack({"preinstalled": Owners("host", "host")}, "preinstalled", why_not=(
        "on-prem GPU hosts get the driver and the container toolkit from Ansible (role sahab_nvidia): the GPU "
        "operator would install them a second time")),
    storage_class=StorageClass(storage_parameters, provisioner_installed=True,
                               annotations={ENCRYPTION_ANNOTATION: "luks"}),
    readiness="onprem", registry=Registry(MirrorRegistry, pulls_through), checkpoint_store=checkpoint_store,
    addons=("cilium", "local-path-provisioner"), late_kubeconfig=True, node_artifacts=node_artifacts)

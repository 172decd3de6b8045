"""Args for the on-prem components from the validated fleet config (components.fleet_config).

Fleet calls these for every `kind: onprem` cluster and its pools; the SSH key comes from the site's secret
config key (`config.secret_config(site.ssh_private_key_secret)`), None meaning the operator's ssh-agent.
"""

from __future__ import annotations

from typing import Any

from sahab.components.artifacts import UPSTREAMS, Images, read_digest_lock
from sahab.components.fleet_config import Cluster, FleetConfig, NodePool, Site
from sahab.components.onprem.cluster import API_SERVER_PORT, OnPremClusterArgs
from sahab.components.onprem.host_args import OnPremAccessArgs, OnPremHostArgs, host_port
from sahab.components.onprem.inventory import group_for
from sahab.components.onprem.node_pool import OnPremNodePoolArgs, TaintArgs, pool_vars


def site_hosts(site: Site, names: tuple[str, ...]) -> tuple[OnPremHostArgs, ...]:
    """The named hosts of a site, in the given order, as SSH targets with the site's SSH user and their shape."""
    by_name = {h.name: h for h in site.hosts}
    return tuple(
        OnPremHostArgs(name=n, address=by_name[n].address, port=by_name[n].port, user=site.ssh_user,
                       cpus=by_name[n].cpus, memory_gib=by_name[n].memory_gib, data_disk=by_name[n].data_disk)
        for n in names
    )


def registry_variables(fleet: FleetConfig, digests: dict[str, str] | None = None) -> dict[str, Any]:
    """With an on-prem mirror (sahab:fleet.registries.onprem): containerd sends every upstream to the mirror under
    its prefix (/etc/containerd/certs.d/<upstream>/hosts.toml), and kubeadm's images, the pause image and kube-vip
    are named in the mirror directly. Without one: nothing (the roles' upstream defaults)."""
    host = fleet.registries.host_of("onprem")
    if host is None:
        return {}
    images = Images(host=host, digests=read_digest_lock() if digests is None else digests)
    return {
        "sahab_containerd_registry_mirrors": {u.host: f"https://{host}/v2/{u.alias}" for u in UPSTREAMS.values()},
        "sahab_containerd_sandbox_image": images.reference("pause"),
        "sahab_control_plane_image_repository": f"{host}/{UPSTREAMS['registry.k8s.io'].alias}",
        "sahab_control_plane_kube_vip_image": images.reference("kube-vip"),
    }


def known_hosts(site: Site) -> str | None:
    """The site's recorded host keys in known_hosts format (`[address]:port` off port 22), or None when the site
    records none (then SSH checks the operator's ~/.ssh/known_hosts)."""
    lines = []
    for host in site.hosts:
        where = host.address if host.port == 22 else f"[{host.address}]:{host.port}"
        lines += [f"{where} {key}" for key in host.ssh_host_keys]
    return "\n".join(lines) if lines else None


def access_for(site: Site, cluster: Cluster, ssh_private_key: Any = None,
               registry: dict[str, Any] | None = None) -> OnPremAccessArgs:
    """How Ansible reaches the site; nodes join through the API server's VIP (or its only host); where the nodes
    pull images from (registry_variables)."""
    first = next(h for h in site.hosts if h.name == cluster.control_plane_hosts[0])
    endpoint = host_port(cluster.control_plane_vip or first.address, API_SERVER_PORT)
    return OnPremAccessArgs(
        ssh_private_key=ssh_private_key,
        known_hosts=known_hosts(site),
        airgapped=site.airgapped,
        variables={"sahab_kubernetes_version": cluster.kubernetes_version, "sahab_control_plane_endpoint": endpoint,
                   "sahab_os_firewall_cluster_cidrs": firewall_sources(site, cluster),
                   **(registry or {})},
    )


def firewall_sources(site: Site, cluster: Cluster) -> list[str]:
    """Who may reach a node's cluster ports: the site's node_networks, else each of its hosts (all of them, so a
    host added to a pool is admitted everywhere before it joins) and the cluster's VIP; IPv4 and IPv6 alike."""
    if site.node_networks:
        return list(site.node_networks)
    return [h.address for h in site.hosts] + ([cluster.control_plane_vip] if cluster.control_plane_vip else [])


def cluster_args(fleet: FleetConfig, cluster: Cluster, ssh_private_key: Any = None,
                 digests: dict[str, str] | None = None) -> OnPremClusterArgs:
    """The control plane, with the pool settings of control-plane hosts that also run workloads, and the list of
    the cluster's hosts with data disks (each gets its LUKS2 key from the cluster)."""
    site = fleet.site(cluster.site)
    node_vars, pool_groups = {}, {}
    members = set(cluster.control_plane_hosts)
    for pool in fleet.pools_of(cluster.name):
        members |= set(pool.hosts)
        shared = [h for h in pool.hosts if h in cluster.control_plane_hosts]
        if shared:
            variables = pool_vars(pool_args(fleet, pool, ssh_private_key, digests=digests))
            for host in shared:
                node_vars[host], pool_groups[host] = variables, group_for(pool.accelerator)
    return OnPremClusterArgs(
        control_plane_hosts=site_hosts(site, cluster.control_plane_hosts),
        vip=cluster.control_plane_vip,
        schedulable=bool(cluster.schedule_on_control_plane),
        node_vars=node_vars,
        pool_groups=pool_groups,
        data_disk_hosts=tuple(h.name for h in site.hosts if h.name in members and h.data_disk),
        access=access_for(site, cluster, ssh_private_key, registry_variables(fleet, digests)),
    )


def pool_args(fleet: FleetConfig, pool: NodePool, ssh_private_key: Any = None,
              data_volume_keys: dict[str, Any] | None = None,
              digests: dict[str, str] | None = None) -> OnPremNodePoolArgs:
    """A pool's args: labels and taints exactly as its nodes carry them (pool, accelerator and NVIDIA labels,
    the GPU taint on GPU pools)."""
    cluster = fleet.cluster(pool.cluster)
    site = fleet.site(cluster.site)
    return OnPremNodePoolArgs(
        pool=pool.name,
        cluster=cluster.name,
        accelerator=pool.accelerator,
        gpus_per_node=pool.gpus_per_node or 0,
        hosts=site_hosts(site, pool.hosts),
        control_plane_hosts=site_hosts(site, cluster.control_plane_hosts),
        labels=pool.node_labels,
        taints=tuple(TaintArgs(key=t.key, value=t.value, effect=t.effect) for t in pool.taints),
        data_volume_keys=dict(data_volume_keys or {}),
        access=access_for(site, cluster, ssh_private_key, registry_variables(fleet, digests)),
    )

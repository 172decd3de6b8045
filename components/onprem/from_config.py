"""Args for the on-prem components from the validated fleet config (components.config).

Fleet calls these for every `kind: onprem` cluster and its pools; the SSH key comes from the site's secret
config key (`config.secret_config(site.ssh_private_key_secret)`), None meaning the operator's ssh-agent.
"""

from __future__ import annotations

from typing import Any

from components.config import Cluster, FleetConfig, NodePool, Site
from components.onprem.cluster import OnPremClusterArgs
from components.onprem.models import OnPremAccessArgs, OnPremHostArgs
from components.onprem.node_pool import OnPremNodePoolArgs


def site_hosts(site: Site, names: tuple[str, ...]) -> tuple[OnPremHostArgs, ...]:
    """The named hosts of a site, in the given order, as SSH targets with the site's SSH user."""
    by_name = {h.name: h for h in site.hosts}
    return tuple(
        OnPremHostArgs(name=n, address=by_name[n].address, port=by_name[n].port, user=site.ssh_user) for n in names
    )


def access_for(site: Site, cluster: Cluster, ssh_private_key: Any = None) -> OnPremAccessArgs:
    return OnPremAccessArgs(
        ssh_private_key=ssh_private_key,
        airgapped=site.airgapped,
        variables={"sahab_kubernetes_version": cluster.kubernetes_version},
    )


def cluster_args(fleet: FleetConfig, cluster: Cluster, ssh_private_key: Any = None) -> OnPremClusterArgs:
    site = fleet.site(cluster.site)
    return OnPremClusterArgs(
        control_plane_hosts=site_hosts(site, cluster.control_plane_hosts),
        access=access_for(site, cluster, ssh_private_key),
    )


def pool_args(fleet: FleetConfig, pool: NodePool, ssh_private_key: Any = None) -> OnPremNodePoolArgs:
    """A pool's args. The config's labels already hold pool, accelerator and NVIDIA labels; the roles add the
    same ones, and the GPU taint, themselves, so only the extra taints are passed on."""
    cluster = fleet.cluster(pool.cluster)
    site = fleet.site(cluster.site)
    return OnPremNodePoolArgs(
        pool=pool.name,
        accelerator=pool.accelerator,
        hosts=site_hosts(site, pool.hosts),
        control_plane_hosts=site_hosts(site, cluster.control_plane_hosts),
        labels=pool.node_labels,
        taints=tuple(f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}" for t in pool.extra_taints),
        access=access_for(site, cluster, ssh_private_key),
    )

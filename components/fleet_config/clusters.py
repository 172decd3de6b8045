"""Kubernetes clusters, one model per kind: EKS, AKS, or kubeadm on an on-prem site.

`Cluster` is their union, told apart by `kind`: each kind takes only its own settings, so a setting of another
kind (an on-prem site on an EKS cluster, a location on an on-prem one) is an unknown key there."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool
from sahab.components import validation
from sahab.components.fleet_config.types import Name, _fits, _Model


class _ClusterBase(_Model):
    """What every kind of cluster takes."""

    name: Name
    """Unique cluster name."""
    kind: Literal["eks", "aks", "onprem"]
    """Where it runs: EKS, AKS, or kubeadm on an on-prem site (each kind narrows this to its own)."""
    kubernetes_version: Annotated[str, _fits(validation.kubernetes_version)] = "1.34"
    """Kubernetes minor version, one Sahab supports (components.validation.KUBERNETES_VERSIONS). Default: 1.34."""
    stack_reference: Annotated[str, _fits(validation.stack_reference)] | None = None
    """Burst stacks: take this cluster from another stack (e.g. `org/sahab/prod`) instead of creating it. An
    on-prem cluster taken this way needs no site: the burst stack only reaches its API (the MultiKueue manager).
    Default: unset (create it)."""


class _CloudCluster(_ClusterBase):
    """What a managed cluster (EKS, AKS) takes besides."""

    location: str | None = None
    """Region/location override for this cluster (e.g. uaecentral). Default: the cloud's."""
    public_endpoint: StrictBool = False
    """Expose the API server publicly. Default: false (private endpoint only)."""
    public_endpoint_cidrs: tuple[Annotated[str, _fits(validation.api_access_cidr)], ...] = ()
    """With `public_endpoint`: the only IPv4 ranges that may reach the API server, each a /8 or narrower; required
    then (0.0.0.0/0 is refused). Default: none."""
    region_access_granted: StrictBool = False
    """The subscription has been granted access to this cluster's restricted location (uaecentral: Microsoft opens
    it only on request). Required true there, so nothing is planned into a location the subscription cannot
    use. Default: false."""


class EksCluster(_CloudCluster):
    """An Amazon EKS cluster in the fleet's AWS account (clouds.aws)."""

    kind: Literal["eks"]
    """eks: Amazon EKS."""


class AksCluster(_CloudCluster):
    """An Azure AKS cluster in the fleet's subscription (clouds.azure)."""

    kind: Literal["aks"]
    """aks: Azure Kubernetes Service."""


class OnpremCluster(_ClusterBase):
    """A kubeadm cluster on the hosts of an on-prem site."""

    kind: Literal["onprem"]
    """onprem: kubeadm on an on-prem site's hosts."""
    site: str | None = None
    """The site whose hosts form the cluster; required unless the cluster is taken with `stack_reference`.
    Default: unset."""
    control_plane_hosts: tuple[str, ...] = ()
    """Hosts that run the control plane: one, or three or more for a highly available control plane (etcd needs
    a majority; two would be less available than one). The first by name (sorted, not as listed) runs
    `kubeadm init`, the others join it as control planes. Default: none."""
    control_plane_vip: Annotated[str, _fits(validation.host_address)] | None = None
    """The virtual IP the API server answers on (kube-vip moves it between the control-plane hosts). Required with
    three or more control-plane hosts; an unused address in the hosts' network. Default: none (the first
    control-plane host's address)."""
    schedule_on_control_plane: StrictBool | None = None
    """Let workloads run on the control-plane hosts (no control-plane taint), so a small site (up to 3 hosts)
    loses none of them to Kubernetes itself. Then a control-plane host may also be listed in a node pool.
    Default: on for the smb environment when its site has up to 3 hosts, off otherwise."""


Cluster = Annotated[EksCluster | AksCluster | OnpremCluster, Field(discriminator="kind")]
"""A Kubernetes cluster: EKS, AKS, or kubeadm on an on-prem site, by `kind`."""

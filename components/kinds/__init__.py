"""The cluster kinds Sahab builds: one spec per kind (components/kinds/<kind>.py), registered here by name.

A spec holds everything that differs between kinds: the config section of its clusters, its node-type catalog,
the builder of its clusters and pools, its storage class, its readiness adapter, its in-country registry and its
checkpoint store. Everything else (Fleet, the platform, the registry plan, the CLI) asks the spec and never
compares a cluster's kind with a name. The shape follows torchtitan's TrainSpec registry
(pytorch/torchtitan, torchtitan/protocols/train_spec.py: one dataclass of a model family's parts, looked up by
name); adding a kind is one module here, its schema model (and its registry's), and one line in `_specs`.

The registry's order is the order kinds are listed in everywhere (the readiness check, the registries); Fleet
builds the kinds on the sites' own hosts before the clouds' (`build_order`), which is the order of the resources
in a plan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import pulumi
from pydantic import AfterValidator
from sahab.components import accelerators
from sahab.components.gpu_stack import GpuStack

if TYPE_CHECKING:
    from sahab.components.artifacts import Artifact, Upstream
    from sahab.components.fleet import Fleet
    from sahab.components.fleet_config import Cluster, FleetConfig


class ClusterComponent(Protocol):
    """What Fleet needs of every kind's cluster component (built, or read from the owning stack)."""

    kind: str
    kubeconfig: pulumi.Output[str]


@dataclass(frozen=True)
class NodeTypes:
    """A kind's node-type catalog: the instance types its cloud sells, read from components.accelerators under the
    cloud's key (and from components/offerings for where each is sold)."""

    cloud: str
    """The key of the cloud in components.accelerators (aws, azure)."""

    def instance_types(self, accelerator: str) -> list[str]:
        return accelerators.instance_types(self.cloud, accelerator)

    def default(self, accelerator: str, offerings: Any = None) -> str | None:
        return accelerators.default_instance_type(self.cloud, accelerator, offerings)

    def accelerator_of(self, instance_type: str) -> str | None:
        return accelerators.accelerator_of_instance(self.cloud, instance_type)

    def shape(self, instance_type: str) -> accelerators.InstanceShape | None:
        return accelerators.instance_shape(self.cloud, instance_type)


@dataclass(frozen=True)
class StorageClass:
    """How a kind's default encrypted StorageClass is made (components.kubernetes.storage)."""

    parameters: Callable[[Any, Any], dict]
    """(EncryptedStorageArgs, key or None) -> the class's provisioner, parameters and expansion."""
    provisioner_installed: bool = False
    """Sahab installs the provisioner in the cluster (on-prem: the LUKS local-path provisioner)."""
    annotations: Mapping[str, str] = field(default_factory=dict)
    """Annotations saying how the class encrypts where the parameters cannot (on-prem: LUKS)."""


@dataclass(frozen=True)
class Registry:
    """A kind's in-country registry: its schema model under `sahab:fleet.registries.<kind>`, whether it pulls an
    upstream through, and (for a registry this stack creates) its builder."""

    model: type
    """The registry's schema model (components.registry_config)."""
    pulls_through: Callable[[Upstream, Mapping[str, Any], bool], bool]
    """(upstream, upstream credentials, a site is airgapped) -> the registry caches it (else it is seeded)."""
    build: Callable[[Fleet, dict[str, Any]], pulumi.ComponentResource] | None = None
    """(fleet, upstream credentials as secrets) -> the registry; None: the organisation runs its own."""
    zone: Callable[[FleetConfig], str] | None = None
    """(fleet) -> the DNS zone of the registry's host that a machine on a site forwards to the inbound resolver of
    the kind's cloud network (`sahab doctor` names it); None where the registry is not in a cloud network."""
    private_only: bool = False
    """The registry answers only inside its cloud network (public network access off): reached over the link."""


@dataclass(frozen=True)
class Reference:
    """How a stack borrows a cluster of the kind from the stack that created it (components.cluster_reference)."""

    keys: tuple[str, ...]
    """What the owning stack must export under `clusters.<name>`."""
    read: Callable[[Any, pulumi.ProviderResource | None, str], None]
    """(the ReferencedCluster, the kind's provider, the Azure kubelogin mode) -> sets the attributes the kind's
    cluster component offers (region, kubeconfig, ...) from the export."""


@dataclass(frozen=True)
class KindSpec:
    name: str
    """The value of `clusters[].kind`."""
    cloud: str | None
    """The cloud whose section (`clouds.<cloud>`), buckets and hybrid links the kind's clusters use; None: the
    sites' own hosts."""
    cluster_model: type
    """The config section of the kind's clusters (the schema's cluster model)."""
    network: Callable[[FleetConfig], str | None]
    """The address block of the cloud network the kind's clusters sit in (API server, nodes, storage endpoints);
    None where they sit on the sites' networks."""
    node_types: NodeTypes | None
    """The instance types its pools may name; None where the hosts declare their own hardware."""
    build: Callable[[Fleet], dict[str, ClusterComponent]]
    """Builds the stack's clusters of the kind with their pools (and the cloud's landing resources); returns the
    cluster components by cluster name."""
    storage_class: StorageClass
    readiness: str
    """The module under sahab.readiness reading the kind's clusters back from a plan (components import no sahab
    module: the readiness check imports it by this name)."""
    registry: Registry
    checkpoint_store: Callable[[Fleet, str, str], Any]
    """(fleet, cluster name, team) -> the object store the team's pods write checkpoints to, or None (a volume)."""
    gpu_stack: GpuStack
    """Who installs the GPU driver and container toolkit on the kind's GPU nodes, per `gpu_driver` choice."""
    reference: Reference | None = None
    """How a burst stack borrows the kind's clusters; None: they cannot be borrowed."""
    referenced_store: Callable[[Any], Any] | None = None
    """(the owning stack's exported store Output) -> what a burst stack's Jobs need of it; None: the default
    (URI and the checkpoint key)."""
    addons: tuple[str, ...] = ()
    """The kind's own add-ons (components.addons) besides those every cluster may get."""
    cold_nodes: bool = False
    """Pool nodes start on demand (the cloud's): Kueue gives their pods longer to become ready."""
    private_api: bool = False
    late_kubeconfig: bool = False
    """The cluster's kubeconfig is empty until the cluster converges (kubeadm init): its provider must not fall back
    to the operator's own kubeconfig meanwhile."""
    """The cluster's API is reached over the hybrid link: its provider waits for the deployer's site link."""
    gpu_node_os: Callable[[str], str | None] = lambda kubernetes_version: None
    """The OS suffix of the driver image the GPU operator pulls for the kind's GPU nodes at a Kubernetes minor
    version (components.node_os); None where the operator installs no driver."""
    node_artifacts: Callable[[FleetConfig, list[Cluster]], list[Artifact]] = lambda fleet, clusters: []
    """What the kind's nodes pull besides the add-ons (on-prem: kubeadm's pause, kube-vip)."""
    system_pool: Callable[[], tuple[str, int]] | None = None
    """() -> the instance type and most nodes of the pool each cluster of the kind this stack creates has besides
    its node pools (AKS: its system pool); None: it has none."""


def _specs() -> dict[str, KindSpec]:
    from sahab.components.kinds import aks, eks, onprem

    return {spec.name: spec for spec in (eks.SPEC, aks.SPEC, onprem.SPEC)}


_REGISTRY: dict[str, KindSpec] = {}


def kinds() -> dict[str, KindSpec]:
    """Every kind by name, in build order. Loaded on first use: the kind modules import the schema, which imports
    modules that ask this registry."""
    if not _REGISTRY:
        _REGISTRY.update(_specs())
    return _REGISTRY


def build_order() -> list[KindSpec]:
    """The kinds in the order Fleet builds them: the sites' own, then the clouds' (in registry order)."""
    return sorted(kinds().values(), key=lambda spec: spec.cloud is not None)


def names() -> tuple[str, ...]:
    return tuple(kinds())


def get(name: str) -> KindSpec:
    found = kinds().get(name)
    if found is None:
        raise KeyError(f"unknown cluster kind {name!r}; known: {', '.join(kinds())}")
    return found


def known(name: str) -> str:
    """A pydantic validator for a field holding a kind's name."""
    if name not in kinds():
        raise ValueError(f"{name!r} is not a cluster kind; allowed: {', '.join(kinds())}")
    return name


KindName = Annotated[str, AfterValidator(known)]
"""A field holding a cluster kind's name (one of the registry's)."""

"""Node pools: groups of identical nodes in one cluster, with their accelerators, labels and taints."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictInt
from sahab.components import accelerators, validation
from sahab.components.fleet_config.types import MAX_HOSTS, MAX_NODE_LABELS, MAX_TAINTS, Accelerator, Name, _fits, _Model


class Taint(_Model):
    """A Kubernetes node taint."""

    key: Annotated[str, _fits(validation.qualified_name)]
    """Taint key, e.g. nvidia.com/gpu."""
    value: Annotated[str, _fits(validation.label_value)] = ""
    """Taint value. Default: empty."""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"
    """What the taint does to pods that do not tolerate it. Default: NoSchedule."""



class NodePool(_Model):
    """A group of identical nodes in one cluster."""

    name: Name
    """Unique pool name."""
    cluster: str
    """Name of the cluster the pool joins."""
    accelerator: Accelerator = "cpu"
    """Accelerator on every node, from the hardware catalog. Default: cpu."""
    instance_type: str | None = None
    """Cloud instance type / VM size. Default: the catalog's choice for the accelerator."""
    hosts: Annotated[tuple[str, ...], Field(max_length=MAX_HOSTS)] = ()
    """On-prem only: the site hosts in this pool. Default: none (cloud pools)."""
    min_size: Annotated[StrictInt, Field(ge=0, le=1000)] = 1
    """Autoscaling floor. Default: 1 (burst pools use 0)."""
    max_size: Annotated[StrictInt, Field(ge=0, le=1000)] = 1
    """Autoscaling ceiling. Default: 1."""
    desired_size: Annotated[StrictInt, Field(ge=0, le=1000)] | None = None
    """Initial size. Default: min_size."""
    spot: StrictBool = False
    """Use spot/low-priority capacity. Default: false."""
    disk_size_gb: Annotated[StrictInt, Field(ge=20, le=16384)] = 200
    """Encrypted root volume size. Default: 200."""
    labels: Annotated[dict[str, str], Field(max_length=MAX_NODE_LABELS)] = Field(default_factory=dict)
    """Extra node labels (Kubernetes label syntax; not under sahab.io/, nvidia.com/ or the kubelet-restricted
    kubernetes.io/). Default: none (pool and accelerator labels are always set)."""
    extra_taints: Annotated[tuple[Taint, ...], Field(max_length=MAX_TAINTS)] = ()
    """Taints beyond the GPU taint every GPU pool carries. Default: none."""
    mig_strategy: Literal["none", "single", "mixed"] = "none"
    """NVIDIA MIG strategy for the device plugin; single or mixed only on GPUs with MIG (accelerators.has_mig:
    a100, h100, h200). Default: none."""
    time_slicing_replicas: Annotated[StrictInt, Field(ge=2, le=48)] | None = None
    """Share each GPU between this many pods by time-slicing. Default: unset (no sharing)."""
    gpus_per_node: Annotated[StrictInt, Field(ge=1, le=16)] | None = None
    """GPUs on each node. Default: the instance type's count from the catalog; on-prem, the count its hosts
    declare (`sites[].hosts[].gpus`), which it must equal when set."""
    gpu_driver: Literal["operator", "preinstalled"] | None = None
    """Who installs the NVIDIA driver and container toolkit: the GPU operator, or the node image / host
    (components.gpu_stack). Default: per kind of cluster: preinstalled on EKS (the AL2023 NVIDIA AMI) and on-prem
    (Ansible), operator on AKS; a choice that installs either twice is refused."""
    zones: Annotated[tuple[Annotated[str, Field(pattern=r"^([a-z0-9]+-az[0-9]+|[1-9])$")], ...],
                     Field(max_length=6)] = ()
    """Cloud pools: the zones to place nodes in, as zone IDs on AWS (`mec1-az1`, the same place in every account)
    and zone numbers on Azure (`1` to `3` in UAE North), each once; each must sell the pool's instance type. Default:
    every zone of the cluster's network that sells it (one of them for an EFA pool; AKS: as the location's SKUs
    allow)."""
    efa: StrictBool | None = None
    """EKS: multi-node training over the instance type's Elastic Fabric Adapters: EFA interfaces in the launch
    template, a cluster placement group, one zone, the EFA device plugin, and training pods that ask for
    `vpc.amazonaws.com/efa` and hugepages. Default: on for EFA-capable types (per EC2's instance data) in a pool
    that can grow past one node, off otherwise."""
    gpus_per_worker: Annotated[StrictInt, Field(ge=1, le=16)] | None = None
    """GPUs each training pod (one torchrun worker per GPU) asks for. Default: every GPU of the node; one
    GPU slice on a time-sliced pool, where the device plugin refuses requests for more than one."""

    @property
    def is_gpu(self) -> bool:
        return accelerators.CATALOG[self.accelerator].is_gpu

    @property
    def size(self) -> int:
        return self.min_size if self.desired_size is None else self.desired_size

    @property
    def node_labels(self) -> dict[str, str]:
        """Labels every node of the pool carries: the pool, its accelerator, and on GPUs an NVIDIA marker and
        the device plugin configuration (MIG strategy, time-slicing) the node selects."""
        labels = {accelerators.LABEL_POOL: self.name, accelerators.LABEL_ACCELERATOR: self.accelerator}
        if self.is_gpu:
            labels[accelerators.LABEL_NVIDIA_PRESENT] = "true"
            labels[accelerators.LABEL_DEVICE_PLUGIN_CONFIG] = accelerators.device_plugin_config_name(
                self.mig_strategy, self.time_slicing_replicas)
        return {**labels, **self.labels}

    @property
    def worker_gpus(self) -> int:
        """GPUs (or GPU slices) one training pod of this pool requests; 0 on CPU pools."""
        if not self.is_gpu:
            return 0
        if self.gpus_per_worker is not None:
            return self.gpus_per_worker
        return 1 if self.time_slicing_replicas else (self.gpus_per_node or 1)

    @property
    def taints(self) -> tuple[Taint, ...]:
        """GPU pools are tainted so only pods that ask for GPUs land there."""
        gpu = (Taint(key=accelerators.GPU_TAINT_KEY, value=accelerators.GPU_TAINT_VALUE, effect="NoSchedule"),)
        return (gpu if self.is_gpu else ()) + self.extra_taints


AKS_SPOT_TAINT = Taint(key="kubernetes.azure.com/scalesetpriority", value="spot", effect="NoSchedule")

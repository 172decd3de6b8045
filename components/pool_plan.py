"""How a node pool from the fleet config becomes a cloud node group: pure functions, no Pulumi.

Labels and taints come from the pool itself (`NodePool.node_labels`, `NodePool.taints`); this module only
renders them in each cloud's dialect and decides sizes, images and whether the region can serve the pool.
"""

from __future__ import annotations

from dataclasses import dataclass

from components import catalog, validation
from components.config import NodePool
from components.errors import ConfigError

# EKS spells taint effects in upper snake case.
EKS_TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE",
                     "NoExecute": "NO_EXECUTE"}

# EKS-optimised Amazon Linux 2023 images: the NVIDIA variant ships the driver and container toolkit.
EKS_AMI_GPU = "AL2023_x86_64_NVIDIA"
EKS_AMI_CPU = "AL2023_x86_64_STANDARD"


@dataclass(frozen=True)
class Scaling:
    min_size: int
    max_size: int
    desired_size: int

    @property
    def autoscaled(self) -> bool:
        return self.max_size > self.min_size


def scaling(pool: NodePool) -> Scaling:
    """Sizes as the cloud wants them; a pool may scale from zero (burst) but never has max below min."""
    if not pool.min_size <= pool.size <= pool.max_size:
        raise ConfigError(f"node pool {pool.name}", f"sizes must satisfy min_size <= desired_size <= max_size "
                                                    f"(got {pool.min_size} <= {pool.size} <= {pool.max_size})")
    if pool.max_size == 0:
        raise ConfigError(f"node pool {pool.name}.max_size", "a pool needs max_size of at least 1")
    return Scaling(pool.min_size, pool.max_size, pool.size)


def require_offered(pool: NodePool, cloud: str, region: str) -> str:
    """The pool's instance type after checking the region sells its accelerator (per the hardware catalog)."""
    if not catalog.offered(region, pool.accelerator):
        sold = ", ".join(sorted(catalog.REGION_OFFERINGS.get(region, ()))) or "nothing in the catalog"
        raise ConfigError(f"node pool {pool.name}.accelerator",
                          f"{pool.accelerator!r} is not offered in {region}; allowed there: {sold}")
    instance_type = pool.instance_type or catalog.default_instance_type(cloud, pool.accelerator)
    carried = catalog.accelerator_of_instance(cloud, instance_type) if instance_type else None
    if carried != pool.accelerator:
        raise ConfigError(f"node pool {pool.name}.instance_type",
                          f"{instance_type!r} does not carry {pool.accelerator!r} per the hardware catalog")
    return instance_type


def eks_taints(pool: NodePool) -> list[dict[str, str]]:
    return [{"key": t.key, "value": t.value, "effect": EKS_TAINT_EFFECTS[t.effect]} for t in pool.taints]


def eks_ami_type(pool: NodePool) -> str:
    return EKS_AMI_GPU if pool.is_gpu else EKS_AMI_CPU


# AKS puts this taint on every spot node itself; stating it keeps the pool from drifting on every update. (A pool
# parsed from `sahab:fleet` already carries it among its taints, components.config.AKS_SPOT_TAINT.)
AKS_SPOT_TAINT = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"


def aks_taints(pool: NodePool) -> list[str]:
    """AKS takes taints as `key=value:Effect` strings."""
    taints = [f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}" for t in pool.taints]
    return [*taints, AKS_SPOT_TAINT] if pool.spot and AKS_SPOT_TAINT not in taints else taints


def aks_gpu_driver(pool: NodePool) -> str | None:
    """AKS installs NVIDIA drivers unless told `None`; leave them to the GPU operator when the pool says so."""
    if not pool.is_gpu:
        return None
    return "None" if pool.gpu_driver == "operator" else "Install"


def aks_pool_name(pool_name: str) -> str:
    """AKS agent pool names are 1-12 lower-case letters and digits, starting with a letter."""
    name = validation.aks_agent_pool_name(pool_name)
    if name is None:
        raise ConfigError(f"node pool {pool_name}.name", "cannot be turned into an AKS pool name "
                                                         "(1-12 letters and digits starting with a letter)")
    return name


def aks_pool_names(pool_names: list[str]) -> dict[str, str]:
    """AKS names for the pools of one cluster; refuses two pools that would get the same AKS name."""
    out: dict[str, str] = {}
    for name in pool_names:
        aks = aks_pool_name(name)
        clash = next((other for other, taken in out.items() if taken == aks), None)
        if clash is not None or aks == AKS_SYSTEM_POOL:
            raise ConfigError(f"node pool {name}.name", f"its AKS name {aks!r} clashes with "
                                                        f"{clash or 'the system pool'}; rename one of them")
        out[name] = aks
    return out


AKS_SYSTEM_POOL = validation.AKS_SYSTEM_POOL


NODE_TEMPLATE = "k8s.io/cluster-autoscaler/node-template"


def autoscaler_node_template_tags(pool: NodePool) -> dict[str, str]:
    """Auto Scaling group tags that tell cluster-autoscaler what a node of the pool would look like while the
    group has none: its labels, its taints, and its GPUs. Without them a pool at zero never scales up for a
    pod that selects its labels, tolerates its taint and asks for GPUs."""
    tags = {f"{NODE_TEMPLATE}/label/{key}": value for key, value in pool.node_labels.items()}
    tags |= {f"{NODE_TEMPLATE}/taint/{t.key}": f"{t.value}:{t.effect}" for t in pool.taints}
    if pool.is_gpu:
        # What the device plugin advertises: every GPU, times the replicas when time-sliced.
        gpus = (pool.gpus_per_node or 1) * (pool.time_slicing_replicas or 1)
        tags[f"{NODE_TEMPLATE}/resources/nvidia.com/gpu"] = str(gpus)
    return tags

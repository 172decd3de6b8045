"""How a node pool from the fleet config becomes a cloud node group: pure functions, no Pulumi.

Labels and taints come from the pool itself (`NodePool.node_labels`, `NodePool.taints`); this module only
renders them in each cloud's dialect and decides sizes, images and whether the region can serve the pool.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from sahab.components import accelerators, gpu_stack, offerings, validation
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import NodePool

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
    problem = validation.pool_sizes(pool.min_size, pool.size, pool.max_size)
    if problem:
        raise ConfigError(f"node pool {pool.name}", problem)
    if pool.max_size == 0:
        raise ConfigError(f"node pool {pool.name}.max_size", "a pool needs max_size of at least 1")
    return Scaling(pool.min_size, pool.max_size, pool.size)


def require_offered(pool: NodePool, cloud: str, region: str) -> str:
    """The pool's instance type after checking it carries the pool's accelerator and that the region sells it
    (per its offerings snapshot; regions without one, Azure's today, are judged live by `sahab doctor`). A pool
    from `sahab:fleet` was checked at parse time already, with the config path."""
    snap = offerings.snapshot(cloud, region)
    instance_type = pool.instance_type or accelerators.default_instance_type(cloud, pool.accelerator, snap)
    carried = accelerators.accelerator_of_instance(cloud, instance_type) if instance_type else None
    if carried != pool.accelerator:
        raise ConfigError(f"node pool {pool.name}.instance_type",
                          f"{instance_type!r} does not carry {pool.accelerator!r} per the hardware catalog")
    if snap is not None and not snap.sells(instance_type):
        raise ConfigError(f"node pool {pool.name}.instance_type",
                          f"{pool.accelerator!r} is not offered in {region} as {instance_type} (per the offerings of "
                          f"{snap.data_as_of.isoformat()})")
    return instance_type


def eks_taints(pool: NodePool) -> list[dict[str, str]]:
    return [{"key": t.key, "value": t.value, "effect": EKS_TAINT_EFFECTS[t.effect]} for t in pool.taints]


def eks_ami_type(pool: NodePool) -> str:
    return EKS_AMI_GPU if pool.is_gpu else EKS_AMI_CPU


# cluster-autoscaler's AWS provider treats a node carrying this label as a GPU node before the device plugin has
# advertised its GPUs, so it does not scale up again for the same pods (kubernetes/autoscaler
# cluster-autoscaler/cloudprovider/aws/aws_cloud_provider.go GPULabel, README "Special note on GPU instances").
EKS_ACCELERATOR_LABEL = "k8s.amazonaws.com/accelerator"
LABEL_EFA = "sahab.io/efa"  # EFA pools' nodes: where the EFA device plugin runs


def eks_labels(pool: NodePool, instance_type: str) -> dict[str, str]:
    """The pool's labels plus what EKS nodes need: the GPU type for cluster-autoscaler, the EFA marker."""
    labels = dict(pool.node_labels)
    facts = offerings.aws_instance(instance_type)
    if pool.is_gpu:
        gpu = (facts.gpu if facts and facts.gpu else f"nvidia {pool.accelerator}").lower().replace(" ", "-")
        labels[EKS_ACCELERATOR_LABEL] = gpu  # e.g. nvidia-l40s (the README's form: nvidia-tesla-k80)
    if efa_layout(pool, instance_type):
        labels[LABEL_EFA] = "true"
    return labels


# ---- the fabric: EFA ---------------------------------------------------------------------------------------
# A training pod asks for this much of the node's 2 MiB hugepages (libfabric's EFA provider registers its buffers
# there); AWS's EKS EFA examples request 5120Mi per pod (EKS user guide, "Run machine learning training on Amazon
# EKS with Elastic Fabric Adapter").
EFA_HUGEPAGES_MIB_PER_POD = 5120
EFA_SECURITY_GROUP_BUILT_IN = "1.33"  # eksctl EFABuiltInSupportVersion: the cluster security group carries EFA


@dataclass(frozen=True)
class Nic:
    device_index: int
    network_card_index: int


@dataclass(frozen=True)
class EfaLayout:
    interfaces: tuple[Nic, ...]
    pods_per_node: int  # training pods on one node (one per `worker_gpus`)

    @property
    def per_pod(self) -> int:
        """EFA devices each training pod asks for."""
        return len(self.interfaces) // self.pods_per_node

    @property
    def hugepages_2mi_pages(self) -> int:
        return self.pods_per_node * EFA_HUGEPAGES_MIB_PER_POD // 2


def efa_layout(pool: NodePool, instance_type: str) -> EfaLayout | None:
    """One EFA interface per network card, as eksctl lays them out for managed node groups (eksctl
    pkg/cfn/builder/network_interfaces.go, v0.230.0): card 0 as device 0, every further card as device 1.
    None when the pool does not use EFA (an unset `efa` means: on for an EFA-capable type that can span nodes)."""
    facts = offerings.aws_instance(instance_type)
    cards = min(facts.network_cards, facts.efa_interfaces) if facts else 0
    wanted = pool.efa if pool.efa is not None else (cards > 0 and pool.max_size > 1)
    if not wanted or cards == 0:
        return None
    gpus = pool.gpus_per_node or (facts.gpus if facts else 1) or 1
    pods = max(1, gpus // (pool.worker_gpus or gpus)) if pool.is_gpu else 1
    nics = tuple(Nic(0 if card == 0 else 1, card) for card in range(cards))
    return EfaLayout(nics, pods)


def efa_needs_own_security_group(kubernetes_version: str) -> bool:
    return validation.older_than(kubernetes_version, EFA_SECURITY_GROUP_BUILT_IN)


def hugepages_user_data(pages: int) -> str:
    """Launch template user data (base64 MIME multipart, which EKS merges with its own nodeadm config) that
    reserves 2 MiB hugepages at boot. The script runs in cloud-init before nodeadm starts the kubelet
    (amazon-eks-ami nodeadm-run.service: After=cloud-final.service), so the kubelet reports them."""
    script = ("#!/bin/bash\nset -euo pipefail\n"
              f"echo 'vm.nr_hugepages = {pages}' > /etc/sysctl.d/90-sahab-efa-hugepages.conf\n"
              f"sysctl -w vm.nr_hugepages={pages}\n")
    mime = ("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==SAHAB==\"\n\n--==SAHAB==\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n" + script + "\n--==SAHAB==--\n")
    return base64.b64encode(mime.encode()).decode()


# AKS puts this taint on every spot node itself; stating it keeps the pool from drifting on every update. (A pool
# parsed from `sahab:fleet` already carries it among its taints, components.fleet_config.AKS_SPOT_TAINT.)
AKS_SPOT_TAINT = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"


def aks_taints(pool: NodePool) -> list[str]:
    """AKS takes taints as `key=value:Effect` strings."""
    taints = [f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}" for t in pool.taints]
    return [*taints, AKS_SPOT_TAINT] if pool.spot and AKS_SPOT_TAINT not in taints else taints


def aks_gpu_driver(pool: NodePool) -> str | None:
    """AKS installs NVIDIA drivers unless told `None`; leave them to the GPU operator when it owns them
    (components.gpu_stack)."""
    if not pool.is_gpu:
        return None
    return "None" if gpu_stack.owners("aks", pool.gpu_driver).operator_installs else "Install"


def aks_pool_name(pool_name: str) -> str:
    """AKS agent pool names are 1-12 lower-case letters and digits, starting with a letter."""
    name = validation.aks_agent_pool_name(pool_name)
    if name is None:
        raise ConfigError(f"node pool {pool_name}.name", "cannot be turned into an AKS pool name "
                                                         "(1-12 letters and digits starting with a letter)")
    return name


def aks_pool_names(pool_names: list[str]) -> dict[str, str]:
    """AKS names for the pools of one cluster; refuses two pools that would get the same AKS name."""
    clashes = {i: other for i, _, other in validation.aks_pool_clashes(pool_names)}
    out: dict[str, str] = {}
    for i, name in enumerate(pool_names):
        aks = aks_pool_name(name)
        if i in clashes:
            raise ConfigError(f"node pool {name}.name", f"its AKS name {aks!r} clashes with "
                                                        f"{clashes[i] or 'the system pool'}; rename one of them")
        out[name] = aks
    return out


AKS_SYSTEM_POOL = validation.AKS_SYSTEM_POOL


NODE_TEMPLATE = "k8s.io/cluster-autoscaler/node-template"


def autoscaler_node_template_tags(pool: NodePool, labels: dict[str, str] | None = None,
                                  efa: EfaLayout | None = None) -> dict[str, str]:
    """Auto Scaling group tags that tell cluster-autoscaler what a node of the pool would look like while the
    group has none: its labels, its taints, its GPUs and its EFA devices and hugepages. Without them a pool at
    zero never scales up for a pod that selects its labels, tolerates its taint and asks for those resources."""
    tags = {f"{NODE_TEMPLATE}/label/{key}": value for key, value in (labels or pool.node_labels).items()}
    tags |= {f"{NODE_TEMPLATE}/taint/{t.key}": f"{t.value}:{t.effect}" for t in pool.taints}
    if pool.is_gpu:
        # What the device plugin advertises: every GPU, times the replicas when time-sliced.
        gpus = (pool.gpus_per_node or 1) * (pool.time_slicing_replicas or 1)
        tags[f"{NODE_TEMPLATE}/resources/nvidia.com/gpu"] = str(gpus)
    if efa:
        tags[f"{NODE_TEMPLATE}/resources/vpc.amazonaws.com/efa"] = str(len(efa.interfaces))
        tags[f"{NODE_TEMPLATE}/resources/hugepages-2Mi"] = f"{efa.hugepages_2mi_pages * 2}Mi"
    return tags

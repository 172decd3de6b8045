"""AksNodePool: one fleet node pool as an AKS user pool, GPU pools tainted and left to the GPU operator."""

from __future__ import annotations

from typing import Any, Literal

import pulumi
import pulumi_azure_native as azure_native
from pydantic import BaseModel, ConfigDict, Field
from sahab.components import pool_plan
from sahab.components.fleet_config import NodePool

cs = azure_native.containerservice


class AksNodePoolArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    pool: NodePool
    """The pool from the fleet config. Required."""
    location: str
    """Location of the cluster (the accelerator must be offered there per the hardware catalog). Required."""
    resource_group_name: Any
    """Resource group of the cluster (Input[str]). Required."""
    cluster_name: Any
    """AKS cluster to add the pool to (Input[str]). Required."""
    subnet_id: Any
    """Node subnet (Input[str]). Required."""
    agent_pool_name: str | None = None
    """AKS pool name (1-12 letters/digits). Default: derived from the pool name by `pool_plan.aks_pool_name`."""
    os_sku: Literal["Ubuntu", "AzureLinux"] = "Ubuntu"
    """Node image. Default: Ubuntu (the NVIDIA GPU operator's reference image on AKS)."""
    encryption_at_host: bool = True
    """Encrypt temp disks and caches on the host. Default: true."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on the pool. Default: none."""


class AksNodePool(pulumi.ComponentResource):
    agent_pool_name: str

    def __init__(self, name: str, args: AksNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        pool = args.pool
        vm_size = pool_plan.require_offered(pool, "azure", args.location)
        sizes = pool_plan.scaling(pool)
        agent_pool_name = args.agent_pool_name or pool_plan.aks_pool_name(pool.name)
        super().__init__("sahab:azure:AksNodePool", name, None, opts)
        driver = pool_plan.aks_gpu_driver(pool)
        spot = dict(scale_set_priority="Spot", scale_set_eviction_policy="Delete", spot_max_price=-1) \
            if pool.spot else {}

        cs.AgentPool(
            f"{name}-pool",
            agent_pool_name=agent_pool_name,
            resource_group_name=args.resource_group_name,
            resource_name_=args.cluster_name,
            mode="User",
            type="VirtualMachineScaleSets",
            os_type="Linux",
            os_sku=args.os_sku,
            vm_size=vm_size,
            count=sizes.desired_size,
            enable_auto_scaling=sizes.autoscaled,
            min_count=sizes.min_size if sizes.autoscaled else None,
            max_count=sizes.max_size if sizes.autoscaled else None,
            os_disk_type="Managed",  # the cluster's Disk Encryption Set encrypts managed OS disks
            os_disk_size_gb=pool.disk_size_gb,
            enable_encryption_at_host=args.encryption_at_host,
            vnet_subnet_id=args.subnet_id,
            node_labels=pool.node_labels,
            node_taints=pool_plan.aks_taints(pool),
            # The zones that sell the size (resolved with the fleet); none: regional, Azure places the nodes.
            availability_zones=list(pool.zones) or None,
            gpu_profile=cs.GPUProfileArgs(driver=driver) if driver else None,
            tags={**args.tags, "sahab.io/pool": pool.name, "sahab.io/accelerator": pool.accelerator},
            **spot,
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["count"] if sizes.autoscaled else None),
        )
        self.pool = pool
        self.agent_pool_name = agent_pool_name
        self.register_outputs({"agentPoolName": agent_pool_name})

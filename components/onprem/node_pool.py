"""OnPremNodePool: a pool of on-prem GPU or CPU servers, converged by Ansible from `pulumi up`."""

from __future__ import annotations

import pulumi
from pydantic import BaseModel, ConfigDict, Field, field_validator

from components.onprem.inventory import converge_inputs, group_for, hosts_for, pool_host_vars
from components.onprem.models import HOSTNAME, OnPremAccessArgs, OnPremHostArgs
from components.onprem.playbook_run import PlaybookRun


class OnPremNodePoolArgs(BaseModel):
    """A node pool of on-prem servers. GPU pools (any accelerator but "cpu") converge in gpu_nodes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pool: str = Field(pattern=HOSTNAME, description="Pool name (node label sahab.io/pool).")
    accelerator: str = Field(
        default="cpu",
        min_length=1,
        description='Accelerator of all hosts, "nvidia-h100" (label sahab.io/accelerator, default "cpu").',
    )
    hosts: tuple[OnPremHostArgs, ...] = Field(min_length=1, description="The pool's servers.")
    control_plane_hosts: tuple[OnPremHostArgs, ...] = Field(
        default=(), description="The cluster's control plane, where join tokens are created (default none)."
    )
    labels: dict[str, str] = Field(default_factory=dict, description="Extra node labels (default none).")
    taints: tuple[str, ...] = Field(
        default=(),
        description="Extra taints, key=value:Effect; GPU pools always get nvidia.com/gpu (default none).",
    )
    access: OnPremAccessArgs = Field(description="SSH access and converge settings.")

    @field_validator("hosts")
    @classmethod
    def _unique_names(cls, hosts: tuple[OnPremHostArgs, ...]) -> tuple[OnPremHostArgs, ...]:
        names = [h.name for h in hosts]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"host names must be unique: {', '.join(duplicates)}")
        return hosts


class OnPremNodePool(pulumi.ComponentResource):
    """Converges the pool's hosts (OS, containerd, NVIDIA on GPU pools, LUKS, kubelet) and joins them."""

    def __init__(self, name: str, args: OnPremNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("sahab:onprem:NodePool", name, None, opts)
        nodes = hosts_for(
            args.hosts,
            group_for(args.accelerator),
            pool_host_vars(args.pool, args.accelerator, args.labels, args.taints),
        )
        control_plane = hosts_for(args.control_plane_hosts, "control_plane")
        limit = ",".join(h.name for h in nodes)  # the control plane is in the inventory only to mint join tokens
        self.converge = PlaybookRun(
            f"{name}-converge",
            converge_inputs(control_plane + nodes, args.access, limit),
            pulumi.ResourceOptions(parent=self),
        )
        self.host_names = [h.name for h in nodes]
        self.outcomes = self.converge.outcomes
        self.failed_hosts = self.converge.failed_hosts
        self.register_outputs(
            {"host_names": self.host_names, "outcomes": self.outcomes, "failed_hosts": self.failed_hosts}
        )

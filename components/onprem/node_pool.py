"""OnPremNodePool: a pool of on-prem GPU or CPU servers, converged by Ansible from `pulumi up`.

The component's inputs describe the pool's nodes as Kubernetes will see them (read by `sahab plan`'s
readiness verdict): cluster, accelerator, labels, taints, and per node its logical CPUs, memory and GPUs.
"""

from __future__ import annotations

from typing import Any, Literal

import pulumi
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sahab.components import validation
from sahab.components.onprem.host_args import HOSTNAME, OnPremAccessArgs, OnPremHostArgs
from sahab.components.onprem.inventory import converge_inputs, group_for, hosts_for, pool_host_vars
from sahab.components.onprem.playbook_run import PlaybookRun


class TaintArgs(BaseModel):
    """A node taint."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(min_length=1, description="Taint key.")
    value: str = Field(default="", description="Taint value (default empty).")
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = Field(description="Taint effect.")


class OnPremNodePoolArgs(BaseModel):
    """A node pool of on-prem servers. GPU pools (any accelerator but "cpu") converge in gpu_nodes."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    pool: str = Field(pattern=HOSTNAME, description="Pool name (node label sahab.io/pool).")
    cluster: str = Field(default="", description="Name of the cluster the pool joins (default unnamed).")
    accelerator: str = Field(
        default="cpu",
        min_length=1,
        description='Accelerator of all hosts from the hardware catalog, e.g. "h100" (default "cpu").',
    )
    gpus_per_node: int = Field(default=0, ge=0, description="GPUs in each host (default 0).")
    hosts: tuple[OnPremHostArgs, ...] = Field(min_length=1, description="The pool's servers.")
    control_plane_hosts: tuple[OnPremHostArgs, ...] = Field(
        default=(), description="The cluster's control plane, where join tokens are created (default none)."
    )
    labels: dict[str, str] = Field(default_factory=dict, description="Node labels (default none).")
    taints: tuple[TaintArgs, ...] = Field(
        default=(), description="Node taints, the GPU taint of GPU pools included (default none)."
    )
    data_volume_keys: dict[str, Any] = Field(
        default_factory=dict,
        description="LUKS2 key (a Pulumi secret) per host with a data disk, from OnPremCluster (default none).",
    )
    access: OnPremAccessArgs = Field(description="SSH access and converge settings.")

    @field_validator("hosts")
    @classmethod
    def _unique_names(cls, hosts: tuple[OnPremHostArgs, ...]) -> tuple[OnPremHostArgs, ...]:
        names = [h.name for h in hosts]
        duplicates = sorted({names[i] for i in validation.repeated(names)})
        if duplicates:
            raise ValueError(f"host names must be unique: {', '.join(duplicates)}")
        return hosts

    def props(self) -> dict[str, Any]:
        """The pool as the cluster will see it (the component's registered inputs)."""
        control_plane = {h.name for h in self.control_plane_hosts}
        return {
            "cluster": self.cluster,
            "accelerator": self.accelerator,
            "labels": dict(self.labels),
            "taints": [t.model_dump() for t in self.taints],
            "nodes": [{"host": h.name, "cpu": h.cpus, "memoryGi": h.memory_gib, "gpus": self.gpus_per_node}
                      for h in self.hosts],
            "controlPlane": any(h.name in control_plane for h in self.hosts),
        }


class OnPremNodePool(pulumi.ComponentResource):
    """Converges the pool's hosts (OS, containerd, NVIDIA on GPU pools, LUKS, kubelet) and joins them.

    Hosts that also run the control plane (small sites) are converged, with this pool's labels and taints, by
    the cluster's own run; this one converges the others."""

    def __init__(self, name: str, args: OnPremNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("sahab:onprem:NodePool", name, args.props(), opts)
        control_plane_names = {h.name for h in args.control_plane_hosts}
        workers = [h for h in args.hosts if h.name not in control_plane_names]
        self.host_names = [h.name for h in args.hosts]
        self.converge: PlaybookRun | None = None
        self.outcomes: pulumi.Input[dict] = {}
        self.failed_hosts: pulumi.Input[list] = []
        if workers:
            nodes = hosts_for(workers, group_for(args.accelerator), pool_vars(args))
            control_plane = hosts_for(args.control_plane_hosts, "control_plane")
            limit = ",".join(h.name for h in nodes)  # the control plane is in the inventory only to mint join tokens
            keys = {h.name: args.data_volume_keys[h.name] for h in workers if h.name in args.data_volume_keys}
            access = args.access
            if keys:
                access = access.model_copy(update={"secret_variables": pulumi.Output.all(
                    keys=keys, extra=access.secret_variables or {},
                ).apply(lambda s: {"sahab_data_volumes_keys": s["keys"], **s["extra"]})})
            self.converge = PlaybookRun(
                f"{name}-converge",
                converge_inputs(control_plane + nodes, access, limit),
                pulumi.ResourceOptions(parent=self),
            )
            self.outcomes = self.converge.outcomes
            self.failed_hosts = self.converge.failed_hosts
        self.register_outputs(
            {"host_names": self.host_names, "outcomes": self.outcomes, "failed_hosts": self.failed_hosts}
        )


def pool_vars(args: OnPremNodePoolArgs) -> dict[str, Any]:
    """The Ansible variables of every node of the pool (also given to its control-plane hosts)."""
    return pool_host_vars(args.pool, args.accelerator, args.labels, [t.model_dump() for t in args.taints],
                          args.gpus_per_node)

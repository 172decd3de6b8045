"""OnPremCluster: the on-prem control plane, prepared and initialised by Ansible.

One control-plane host runs `kubeadm init`; with three or more, the others join it as control planes and
kube-vip keeps the API server's virtual IP on a live one. The cluster's secrets are generated here as Pulumi
secrets and reach Ansible only as secret variables: the key that encrypts Secrets in etcd, the key that
protects the control-plane certificates while they are shared, and one LUKS2 key per host with a data disk
(the node pools of the cluster take theirs from ``data_volume_keys``).
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_random as random
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sahab.components import validation
from sahab.components.onprem.host_args import OnPremAccessArgs, OnPremHostArgs, host_port
from sahab.components.onprem.inventory import converge_inputs, hosts_for
from sahab.components.onprem.playbook_run import PlaybookRun
from sahab.components.onprem.runner import Host

API_SERVER_PORT = 6443
# Long enough that the derived 256-bit keys (ansible/filter_plugins) keep all their strength.
SECRET_LENGTH = 64


class OnPremClusterArgs(BaseModel):
    """The control-plane servers of one on-prem site."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    control_plane_hosts: tuple[OnPremHostArgs, ...] = Field(
        min_length=1,
        description="Control-plane servers: 1, or 3 or more (HA); the first by name (sorted) runs kubeadm init.",
    )
    vip: str | None = Field(
        default=None,
        description="Virtual IP of the API server, held by kube-vip; required with 3+ hosts "
        "(default: none, the first host's address).",
    )
    schedulable: bool = Field(
        default=False, description="Workloads may run on the control-plane hosts: no control-plane taint (default off)."
    )
    node_vars: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Per control-plane host that is also in a node pool: that pool's variables "
        "(labels, taints, kubelet settings; inventory.pool_host_vars) (default none).",
    )
    pool_groups: dict[str, str] = Field(
        default_factory=dict,
        description="Per control-plane host that is also in a node pool: its pool's inventory group, gpu_nodes "
        "or cpu_nodes (default none).",
    )
    data_disk_hosts: tuple[str, ...] = Field(
        default=(), description="Every host of the cluster (pools included) with a data disk: each gets a LUKS2 key."
    )
    access: OnPremAccessArgs = Field(description="SSH access and converge settings.")

    @field_validator("vip")
    @classmethod
    def _vip(cls, value: str | None) -> str | None:
        problem = None if value is None else validation.host_address(value)
        if problem:
            raise ValueError(f"{validation.shown(value)}: allowed: {problem}")
        return value

    @model_validator(mode="after")
    def _ha(self) -> OnPremClusterArgs:
        n = len(self.control_plane_hosts)
        if validation.splits_etcd(n):
            raise ValueError("2 control-plane hosts cannot keep an etcd majority; use 1, or 3 or more")
        if validation.needs_api_vip(n) and not self.vip:
            raise ValueError(f"{n} control-plane hosts need a vip for the API server")
        return self

    @property
    def endpoint(self) -> str:
        return host_port(self.vip or self.control_plane_hosts[0].address, API_SERVER_PORT)


def control_plane_inventory(args: OnPremClusterArgs) -> list[Host]:
    """The control-plane hosts in the control_plane group; a host that also runs workloads carries its pool's
    variables and is in its pool's group as well. The inventory lists a group's hosts sorted by name, so the first
    by name runs kubeadm init, whatever their order here. It stays so: on an existing cluster, a different first
    host would refuse to converge."""
    hosts = []
    for spec in args.control_plane_hosts:
        pool_vars = args.node_vars.get(spec.name, {})
        hosts += hosts_for([spec], "control_plane", pool_vars)
        if spec.name in args.pool_groups:
            hosts += hosts_for([spec], args.pool_groups[spec.name], pool_vars)
    return hosts


def control_plane_variables(args: OnPremClusterArgs) -> dict[str, Any]:
    """The play-wide variables of the control-plane converge (its secrets travel separately)."""
    return {
        "sahab_control_plane_endpoint": args.endpoint,
        "sahab_control_plane_vip": args.vip or "",
        "sahab_control_plane_schedulable": args.schedulable,
        **args.access.variables,
    }


class OnPremCluster(pulumi.ComponentResource):
    """Converges the control plane; pools pass ``control_plane_hosts`` and depend on it to join."""

    def __init__(self, name: str, args: OnPremClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("sahab:onprem:Cluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        def secret(suffix: str) -> pulumi.Output[str]:
            password = random.RandomPassword(f"{name}-{suffix}", length=SECRET_LENGTH, special=False, opts=child)
            return pulumi.Output.secret(password.result)

        self.data_volume_keys: dict[str, pulumi.Output[str]] = {
            host: secret(f"luks-{host}") for host in args.data_disk_hosts
        }
        cp_names = {h.name for h in args.control_plane_hosts}
        secrets = pulumi.Output.all(
            encryption=secret("secrets-encryption-key"),
            certificate=secret("certificate-key"),
            luks={h: k for h, k in self.data_volume_keys.items() if h in cp_names},
            extra=args.access.secret_variables or {},
        ).apply(lambda s: {
            "sahab_control_plane_encryption_secret": s["encryption"],
            "sahab_control_plane_certificate_secret": s["certificate"],
            "sahab_data_volumes_keys": s["luks"],
            **s["extra"],
        })

        access = args.access.model_copy(
            update={"variables": control_plane_variables(args), "secret_variables": secrets})
        self.endpoint = args.endpoint
        self.converge = PlaybookRun(
            f"{name}-control-plane", converge_inputs(control_plane_inventory(args), access, "control_plane"), child
        )
        self.kind = "onprem"
        # Data volumes are LUKS-encrypted by Ansible; there is no cloud key to hand the storage classes.
        self.storage_encryption_id = None
        # kubeadm's admin kubeconfig, handed back by the control-plane role; empty until kubeadm init has run.
        self.kubeconfig = pulumi.Output.secret(
            self.converge.artifacts.apply(lambda artifacts: (artifacts or {}).get("sahab_kubeconfig", ""))
        )
        self.outcomes = self.converge.outcomes
        self.failed_hosts = self.converge.failed_hosts
        self.register_outputs({"endpoint": self.endpoint, "outcomes": self.outcomes, "failed_hosts": self.failed_hosts})

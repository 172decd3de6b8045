"""OnPremCluster: the on-prem control plane, prepared and initialised by Ansible (kubeadm init)."""

from __future__ import annotations

import pulumi
from pydantic import BaseModel, ConfigDict, Field

from components.onprem.inventory import converge_inputs, hosts_for
from components.onprem.models import OnPremAccessArgs, OnPremHostArgs
from components.onprem.playbook_run import PlaybookRun

API_SERVER_PORT = 6443


class OnPremClusterArgs(BaseModel):
    """The control-plane servers of one on-prem site."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    control_plane_hosts: tuple[OnPremHostArgs, ...] = Field(min_length=1, description="Control-plane servers.")
    endpoint: str | None = Field(
        default=None,
        description="host:port of the API server (a VIP or load balancer); default: first host:6443.",
    )
    access: OnPremAccessArgs = Field(description="SSH access and converge settings.")


class OnPremCluster(pulumi.ComponentResource):
    """Converges the control plane; pools pass ``control_plane_hosts`` and depend on it to join."""

    def __init__(self, name: str, args: OnPremClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("sahab:onprem:Cluster", name, None, opts)
        hosts = hosts_for(args.control_plane_hosts, "control_plane")
        self.endpoint = args.endpoint or f"{args.control_plane_hosts[0].address}:{API_SERVER_PORT}"
        access = args.access.model_copy(
            update={"variables": {"sahab_control_plane_endpoint": self.endpoint, **args.access.variables}}
        )
        self.converge = PlaybookRun(
            f"{name}-control-plane",
            converge_inputs(hosts, access, "control_plane"),
            pulumi.ResourceOptions(parent=self),
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

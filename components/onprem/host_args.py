"""Argument models shared by the on-prem components."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from sahab.components import validation

HOSTNAME = r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"


def host_port(address: str, port: int) -> str:
    """`address:port`, an IPv6 address in brackets, as kubeadm's controlPlaneEndpoint and a URL take it."""
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


class OnPremHostArgs(BaseModel):
    """A server reachable over SSH."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=HOSTNAME, description="Inventory name, also the Kubernetes node name.")
    address: str = Field(min_length=1, description="IP address or DNS name SSH connects to.")
    port: int = Field(default=22, ge=1, le=65535, description="SSH port (default 22).")
    user: str = Field(default="root", min_length=1, description="SSH user; root or a user with sudo (default root).")
    cpus: int | None = Field(default=None, ge=1, description="Logical CPUs; sizes the kubelet's reserved CPUs "
                             "(default unknown: one reserved CPU).")
    memory_gib: int | None = Field(default=None, ge=1, description="Memory in GiB (default unknown).")
    data_disk: str | None = Field(default=None, min_length=1, description="Block device of the LUKS2 data volume "
                                  "(default none).")

    @field_validator("address")
    @classmethod
    def _address(cls, value: str) -> str:
        """A canonical IP or a DNS name: it reaches Ansible's inventory, ssh's command line and kubeadm."""
        looks_like_ip = ":" in value or all(c.isdigit() or c == "." for c in value)
        if looks_like_ip:
            problem = validation.host_address(value)
        elif len(value) > 253 or not validation.DNS1123_SUBDOMAIN.fullmatch(value):
            problem = "an IP address or a lower-case DNS name"
        else:
            problem = None
        if problem:
            raise ValueError(f"{validation.shown(value)}: allowed: {problem}")
        return value

    @field_validator("user")
    @classmethod
    def _user(cls, value: str) -> str:
        problem = validation.linux_user(value)
        if problem:
            raise ValueError(f"{validation.shown(value)}: allowed: {problem}")
        return value


class OnPremAccessArgs(BaseModel):
    """How Ansible reaches and converges a site's hosts; shared by the cluster and its pools."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    ssh_private_key: Any = Field(
        default=None,
        description="SSH private key (str or Output[str]), always a Pulumi secret; default: the operator's ssh-agent.",
    )
    known_hosts: str | None = Field(
        default=None,
        description="The hosts' public keys in known_hosts format; default: the operator's ~/.ssh/known_hosts. "
        "Either way SSH refuses a host whose key is unknown or differs.",
    )
    airgapped: bool = Field(
        default=True,
        description="Install only from the hosts' package sources (the site mirror); add no vendor "
        "repository, download nothing from the internet (default true: data stays in the site).",
    )
    skip_hardware_checks: bool = Field(
        default=False,
        description="Converge hosts without GPUs or spare disks; driver, disk steps skipped (default off).",
    )
    variables: dict[str, Any] = Field(default_factory=dict, description="Extra Ansible variables (default none).")
    secret_variables: Any = Field(
        default=None,
        description="Ansible variables that are secrets (join token, LUKS keys): dict or Output[dict]; "
        "stored as Pulumi secrets and never logged (default none).",
    )
    failure_budget: int = Field(
        default=0,
        ge=0,
        description="How many hosts may fail or be unreachable while the others converge (default 0).",
    )
    playbook_dir: str | None = Field(default=None, description="The Ansible directory (default: Sahab's ansible/).")

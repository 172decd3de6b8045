"""Pure planning for on-prem pools: which inventory group a host converges in and the variables it gets.

No Pulumi here; the components and the tests share these functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from components.onprem.models import OnPremAccessArgs
from components.onprem.runner import ANSIBLE_DIR, Host, build_inventory, content_hash

CPU = "cpu"


def group_for(accelerator: str) -> str:
    """gpu_nodes for any NVIDIA accelerator, cpu_nodes for "cpu"."""
    return "cpu_nodes" if accelerator == CPU else "gpu_nodes"


def pool_host_vars(pool: str, accelerator: str, labels: Mapping[str, str], taints: Iterable[str]) -> dict[str, Any]:
    """Ansible variables giving a pool's nodes their labels and taints (the sahab_kubernetes role)."""
    return {
        "sahab_kubernetes_node_pool": pool,
        "sahab_kubernetes_accelerator": accelerator,
        "sahab_kubernetes_node_labels": dict(labels),
        "sahab_kubernetes_node_taints": list(taints),
    }


def hosts_for(specs: Iterable[Any], group: str, host_vars: Mapping[str, Any] | None = None) -> list[Host]:
    """Runner hosts from host specs (anything with name, address, port and user)."""
    return [
        Host(name=s.name, address=s.address, port=s.port, user=s.user, group=group, vars=dict(host_vars or {}))
        for s in specs
    ]


def base_variables(airgapped: bool, skip_hardware_checks: bool, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The play-wide switches plus the caller's own variables (which win)."""
    return {"sahab_airgapped": airgapped, "sahab_skip_hardware_checks": skip_hardware_checks, **dict(extra)}


def host_props(hosts: Iterable[Host]) -> list[dict[str, Any]]:
    """Hosts as plain data for the dynamic resource's inputs (JSON-like values)."""
    return [
        {
            "name": h.name,
            "address": h.address,
            "group": h.group,
            "port": h.port,
            "user": h.user,
            "vars": dict(h.vars),
        }
        for h in hosts
    ]


def converge_inputs(hosts: list[Host], access: OnPremAccessArgs, limit: str) -> dict[str, Any]:
    """The PlaybookRun inputs: hosts, variables, secrets, and the content hash whose change re-runs Ansible.

    The secrets (SSH key, secret variables) are hashed nowhere: PlaybookRun compares them as Pulumi secrets.
    """
    playbook_dir = Path(access.playbook_dir) if access.playbook_dir else ANSIBLE_DIR
    variables = base_variables(access.airgapped, access.skip_hardware_checks, access.variables)
    return {
        "hosts": host_props(hosts),
        "variables": variables,
        "secret_variables": access.secret_variables or {},
        "private_key": access.ssh_private_key or "",  # empty: the operator's ssh-agent
        "known_hosts": access.known_hosts,
        "limit": limit,
        "tags": [],
        "failure_budget": access.failure_budget,
        "playbook_dir": str(playbook_dir),
        "content_hash": content_hash(playbook_dir, build_inventory(hosts), variables),
    }

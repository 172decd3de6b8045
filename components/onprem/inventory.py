"""Pure planning for on-prem pools: which inventory group a host converges in and the variables it gets.

No Pulumi here; the components and the tests share these functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sahab.components.onprem.host_args import OnPremAccessArgs
from sahab.components.onprem.runner import ANSIBLE_DIR, Host, build_inventory, content_hash

CPU = "cpu"
# The encrypted data volume: its device-mapper name and where the `sahab-encrypted` storage class puts volumes
# (components.kubernetes.storage.ONPREM_VOLUME_PATH).
DATA_VOLUME_NAME = "sahab-data"
DATA_VOLUME_MOUNT = "/var/lib/sahab/volumes"
CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "value": "", "effect": "NoSchedule"}


def group_for(accelerator: str) -> str:
    """gpu_nodes for any NVIDIA accelerator, cpu_nodes for "cpu"."""
    return "cpu_nodes" if accelerator == CPU else "gpu_nodes"


def pool_host_vars(
    pool: str, accelerator: str, labels: Mapping[str, str], taints: Iterable[Mapping[str, str]], gpus: int = 0
) -> dict[str, Any]:
    """Ansible variables giving a pool's nodes their labels and taints (the sahab_kubernetes role renders them
    into kubeadm's nodeRegistration), on CPU pools the kubelet's static CPU manager, and on GPU pools the GPUs
    nvidia-smi must list."""
    return {
        **({"sahab_nvidia_expected_gpus": gpus} if accelerator != CPU and gpus else {}),
        "sahab_kubernetes_node_pool": pool,
        "sahab_kubernetes_accelerator": accelerator,
        "sahab_kubernetes_node_labels": dict(labels),
        "sahab_kubernetes_node_taints": [
            {"key": t["key"], "value": t.get("value", ""), "effect": t["effect"]} for t in taints
        ],
        "sahab_kubernetes_cpu_manager": accelerator == CPU,
    }


def reserved_cpus(cpus: int | None) -> str:
    """The CPUs the kubelet keeps for the OS and itself (KubeletConfiguration reservedSystemCPUs): one on a
    small server, two up to 64 logical CPUs, four above. Training pods get the rest, whole and exclusive."""
    count = 1 if cpus is None or cpus <= 16 else 2 if cpus <= 64 else 4
    return "0" if count == 1 else f"0-{count - 1}"


def host_vars(spec: Any) -> dict[str, Any]:
    """Per-host variables from a host spec's shape: reserved CPUs, and the LUKS data volume on its disk
    (its key, a Pulumi secret, arrives separately in sahab_data_volumes_keys under the host's name)."""
    out: dict[str, Any] = {"sahab_kubernetes_reserved_cpus": reserved_cpus(getattr(spec, "cpus", None))}
    disk = getattr(spec, "data_disk", None)
    if disk:
        out["sahab_data_volumes_list"] = [
            {"name": DATA_VOLUME_NAME, "device": disk, "mountpoint": DATA_VOLUME_MOUNT, "key": spec.name}
        ]
    return out


def hosts_for(specs: Iterable[Any], group: str, extra: Mapping[str, Any] | None = None) -> list[Host]:
    """Runner hosts from host specs (OnPremHostArgs): their own variables (host_vars) plus ``extra``."""
    return [
        Host(name=s.name, address=s.address, port=s.port, user=s.user, group=group,
             vars={**host_vars(s), **dict(extra or {})})
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

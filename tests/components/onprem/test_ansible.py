"""Static contracts of ansible/: lint-clean at the production profile, every variable documented, and every
step that touches a running kernel or service guarded by the chroot check."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from sahab.components.onprem.runner import ANSIBLE_DIR

ROLES = sorted(p for p in (ANSIBLE_DIR / "roles").iterdir() if p.is_dir())
# Commands that act on the running kernel or on running services.
LIVE_COMMANDS = re.compile(
    r"\b(modprobe|sysctl|swapoff|update-initramfs|kubeadm (init|join|upgrade|reset|token)|mount|"
    r"cryptsetup (open|luksFormat)|mkfs|systemd-cryptenroll|clevis)\b"
)


def _load(path: Path):
    return yaml.safe_load(path.read_text()) or []


@pytest.mark.slow
def test_ansible_lint_production_profile_is_clean():
    lint = Path(sys.executable).parent / "ansible-lint"
    result = subprocess.run(
        [str(lint), "--profile", "production", "--offline", "--nocolor"],
        cwd=ANSIBLE_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


@pytest.mark.parametrize("role", ROLES, ids=lambda p: p.name)
def test_role_layout_and_every_default_is_specified_and_documented(role):
    for part in ("defaults/main.yml", "meta/main.yml", "meta/argument_specs.yml", "tasks/main.yml"):
        assert (role / part).is_file(), part
    defaults = set(_load(role / "defaults/main.yml"))
    options = set(_load(role / "meta/argument_specs.yml")["argument_specs"]["main"]["options"])
    assert defaults == options
    assert all(name.startswith(role.name + "_") for name in defaults)
    readme = (ANSIBLE_DIR / "README.md").read_text()
    undocumented = sorted(name for name in defaults if f"`{name}`" not in readme)
    assert not undocumented


def test_the_switches_are_documented_with_their_defaults():
    group_vars = _load(ANSIBLE_DIR / "group_vars/all/main.yml")
    assert group_vars == {"sahab_airgapped": False, "sahab_skip_hardware_checks": False,
                          "sahab_form_cluster": "{{ not ansible_facts.is_chroot }}"}
    readme = (ANSIBLE_DIR / "README.md").read_text()
    assert "| `sahab_airgapped` |" in readme and "| `sahab_skip_hardware_checks` |" in readme
    assert "`sahab_form_cluster` (default: `not ansible_facts.is_chroot`)" in readme


def test_the_pod_and_service_networks_are_written_once_for_every_role():
    """kubeadm's networks and the ones every node's firewall forwards are the cluster's: one file of group
    variables, which each role's defaults (and argument specs) refer to; no role writes a network of its own."""
    from tests.components.onprem.test_kubeadm_rendering import render

    networks = _load(ANSIBLE_DIR / "group_vars/all/cluster_networks.yml")
    assert networks == {"sahab_pod_network": "10.244.0.0/16", "sahab_service_network": "10.96.0.0/12"}
    for role in ROLES:
        for part in ("defaults/main.yml", "meta/argument_specs.yml"):
            text = (role / part).read_text()
            assert not [cidr for cidr in networks.values() if cidr in text], (role, part)
    control_plane = _load(ANSIBLE_DIR / "roles/sahab_control_plane/defaults/main.yml")
    firewall = _load(ANSIBLE_DIR / "roles/sahab_os/defaults/main.yml")["sahab_os_firewall_forward_cidrs"]
    kubeadm = [render(control_plane[f"sahab_control_plane_{n}_subnet"], **networks) for n in ("pod", "service")]
    assert [render(cidr, **networks) for cidr in firewall] == kubeadm == list(networks.values())


# The data volumes role opens LUKS volumes also in a chroot, but only when the device was handed to it and the
# kernel's device-mapper answers (`dmsetup version`): the test hosts' loop devices. The kubeadm steps follow
# sahab_form_cluster (default: not a chroot), directly or through the flags derived from it.
GUARDS = ("is_chroot", "sahab_data_volumes_dm.rc", "sahab_form_cluster", "sahab_control_plane_possible",
          "sahab_node_join_possible", "sahab_node_upgrade_needed")


def _tasks(items, inherited_guard=False):
    """Every task in a task list, with whether a chroot guard applies (its own, or a block's)."""
    for task in items:
        guarded = inherited_guard or any(guard in str(task.get("when", "")) for guard in GUARDS)
        if "block" in task:
            yield from _tasks(task["block"], guarded)
        else:
            yield task, guarded


def _guarded_includes(role: Path) -> set[str]:
    return {
        task["ansible.builtin.include_tasks"]
        for task, guarded in _tasks(_load(role / "tasks/main.yml"))
        if "ansible.builtin.include_tasks" in task and guarded
    }


@pytest.mark.parametrize("role", ROLES, ids=lambda p: p.name)
def test_steps_touching_the_running_system_are_skipped_in_a_chroot(role):
    unguarded = []
    for path in sorted((role / "tasks").glob("*.yml")) + sorted((role / "handlers").glob("*.yml")):
        file_guarded = path.name in _guarded_includes(role)
        for task, guarded in _tasks(_load(path), file_guarded):
            text = _command_text(task)
            service = task.get("ansible.builtin.systemd_service") or {}
            live = bool(LIVE_COMMANDS.search(text)) and not text.startswith(("findmnt", "blkid"))
            live |= "state" in service or "daemon_reload" in service or "ansible.builtin.reboot" in task
            if live and not guarded:
                unguarded.append(f"{path.name}: {task['name']}")
    assert not unguarded


# Variables that hold secrets (or results that carry them): LUKS keys, the cluster's encryption and certificate
# secrets, join tokens, the admin kubeconfig.
SECRET_VARIABLES = (
    "sahab_data_volumes_keys",
    "sahab_control_plane_encryption_secret",
    "sahab_control_plane_certificate_secret",
    "sahab_node_join_certificate_secret",
    "sahab_node_join_token",
    "sahab_control_plane_admin_conf",
)


def _expressions(value, raw: bool = False):
    """The Jinja a task evaluates: {{ ... }} in any string, and whole strings under `that` (bare conditions)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _expressions(inner, raw=key == "that")
    elif isinstance(value, list):
        for inner in value:
            yield from _expressions(inner, raw)
    elif isinstance(value, str):
        yield from [value] if raw else re.findall(r"{{(.*?)}}", value, re.S)


def _command_text(task: dict) -> str:
    """The command line a command or shell task runs."""
    command = task.get("ansible.builtin.command") or task.get("ansible.builtin.shell")
    if isinstance(command, dict):
        command = command.get("argv") or command.get("cmd") or ""
    return " ".join(str(a) for a in command) if isinstance(command, list) else str(command or "")


def _prints_secret(text: str) -> bool:
    """kubeadm commands that print a bootstrap token or the certificate key, unless told not to or redirected."""
    if "kubeadm init" in text and "phase" not in text:
        return "--skip-token-print" not in text or "--skip-certificate-key-print" not in text
    if "upload-certs" in text:
        return "--skip-certificate-key-print" not in text
    if "kubeadm token create" in text:
        return ">" not in text  # its only output, the token, goes to a root-only file
    return False


def _uses_secret(task: dict) -> bool:
    body = {k: v for k, v in task.items() if k not in ("name", "when", "no_log", "register")}
    evaluated = " ".join(_expressions(body))
    uses = any(re.search(rf"\b{name}\b", evaluated) for name in SECRET_VARIABLES)
    return uses or _prints_secret(_command_text(task))


def test_kubeadm_runs_print_no_secret_so_their_failures_can_be_shown():
    commands = [_command_text(task) for role in ROLES for path in (role / "tasks").glob("*.yml")
                for task, _ in _tasks(_load(path)) if "kubeadm" in _command_text(task)]
    assert any("kubeadm init --config" in c for c in commands)
    assert any("kubeadm token create" in c for c in commands)
    for command in commands:
        assert not _prints_secret(command), command


@pytest.mark.parametrize("role", ROLES, ids=lambda p: p.name)
def test_tasks_that_handle_secrets_are_no_log(role):
    leaking = []
    for path in sorted((role / "tasks").glob("*.yml")):
        for task, _ in _tasks(_load(path)):
            if _uses_secret(task) and task.get("no_log") is not True:
                leaking.append(f"{path.name}: {task['name']}")
    assert not leaking

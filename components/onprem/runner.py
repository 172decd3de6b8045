"""Run Sahab's playbook over SSH with ansible-runner and turn the result into per-host outcomes.

Plain Python (no Pulumi): the dynamic provider calls it, and so do the host tests and the benchmark.
The SSH key reaches ssh-agent through ansible-runner's FIFO, never a regular file and never a log. Everything
the run writes (inventory, variables, artifacts, ssh's connection sockets) lives in a private 0700 directory
removed afterwards.

Two things hold whatever the operator's environment or ansible.cfg say:
- Host keys are verified. ansible-runner sets ANSIBLE_HOST_KEY_CHECKING=False unless told otherwise, and then
  ansible-core's ssh plugin adds `-o StrictHostKeyChecking=no` right after `ssh_args` and before the inventory's
  `ssh_common_args`; ssh keeps the first value it reads (ansible-core 2.19.14,
  lib/ansible/plugins/connection/ssh.py `_build_command`; ansible-runner 2.4.3, config/_base.py). So the
  inventory sets `ansible_host_key_checking: true` and puts the host key options in `ansible_ssh_args`, the
  first options on every ssh, scp and sftp command line; with a known_hosts given, it is the only one read.
- Nothing Sahab hands Ansible is templated: the inventory and the variables are JSON whose every string is
  marked unsafe (`{"__ansible_unsafe": ...}`), so a value that reads `{{ lookup('pipe', ...) }}` reaches the
  hosts as that text and runs nothing on the operator's machine. Connection settings (`ansible_*`) are Sahab's
  own: a variable may not set one.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any


def _playbook_dir() -> Path:
    """The checkout's ansible/; in an installed wheel, the same files shipped as the `sahab.playbook` package."""
    above = Path(__file__).resolve().parents[2]  # the checkout's root, or the installed `sahab` package
    if (above / "ansible" / "site.yml").is_file():
        return above / "ansible"
    return above / "playbook"


ANSIBLE_DIR = _playbook_dir()
GROUPS = ("control_plane", "gpu_nodes", "cpu_nodes", "site_gateways")
# The longest failure message kept per host (a task's msg can be long; outcomes are for people).
MESSAGE_LIMIT = 1000
# Parallel SSH sessions at most, however many hosts: each is an ssh process and a Python on the controller.
MAX_FORKS = 50


@dataclass(frozen=True)
class Host:
    """One SSH-reachable machine and the inventory group it converges as."""

    name: str
    address: str
    group: str
    port: int = 22
    user: str = "root"
    vars: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.group not in GROUPS:
            raise ValueError(f"host {self.name}: group must be one of {', '.join(GROUPS)}, not {self.group!r}")


@dataclass(frozen=True)
class HostOutcome:
    """What the run did on one host. status: ok, changed, failed or unreachable."""

    host: str
    status: str
    ok: int = 0
    changed: int = 0
    failed: int = 0
    unreachable: int = 0
    skipped: int = 0
    message: str = ""
    # Steps the roles skipped on purpose and said so (no GPU, no disk, a chroot, a package not mirrored).
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunResult:
    outcomes: dict[str, HostOutcome]
    failure_budget: int
    rc: int
    # What the play handed back with set_stats (the control plane's admin kubeconfig): secret, never logged.
    artifacts: dict[str, Any] = field(default_factory=dict, repr=False)
    # Wall-clock seconds per task (role : task name), summed over plays: where a converge spends its time.
    task_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def failed_hosts(self) -> list[str]:
        return sorted(name for name, o in self.outcomes.items() if o.status in ("failed", "unreachable"))

    @property
    def within_budget(self) -> bool:
        return len(self.failed_hosts) <= self.failure_budget

    def as_dict(self) -> dict[str, Any]:
        return {name: asdict(outcome) for name, outcome in sorted(self.outcomes.items())}


# ssh's own options, first on every command line Ansible runs (ansible.cfg's ssh_args, which these replace).
CONNECTION_REUSE = ("ControlMaster=auto", "ControlPersist=60s", "ServerAliveInterval=15")


def host_key_options(known_hosts_files: Iterable[str] = (), *, accept_new: bool = False) -> list[str]:
    """The one definition of how Sahab's ssh verifies host keys (the runner's Ansible and `sahab doctor`/`init`):
    strict checking (``accept_new``: a key not yet on record is accepted and written to the first file, one that
    differs never), no key learned or replaced on the way (UpdateHostKeys, DNS), and with ``known_hosts_files``
    those files alone (not /etc/ssh/ssh_known_hosts, no KnownHostsCommand from the operator's ssh_config).
    Each item is one `-o` value; a file name is quoted for ssh_config, which splits a file list at spaces."""
    options = [f"StrictHostKeyChecking={'accept-new' if accept_new else 'yes'}", "UpdateHostKeys=no",
               "VerifyHostKeyDNS=no"]
    files = [str(f) for f in known_hosts_files]
    for file in files:
        if '"' in file or not file.isprintable():
            raise ValueError(f"known_hosts path {file!r}: no quotes or control characters")
    if files:
        options += ["UserKnownHostsFile=" + " ".join(f'"{f}"' for f in files), "GlobalKnownHostsFile=/dev/null",
                    "KnownHostsCommand=none"]
    return options


def ssh_args(known_hosts_file: str | None) -> str:
    """`ansible_ssh_args`: the host key options (`host_key_options`) with ``known_hosts_file`` alone, else ssh's
    own known_hosts files, then connection reuse."""
    options = host_key_options([known_hosts_file] if known_hosts_file else [])
    return " ".join(f"-o {shlex.quote(option)}" for option in (*options, *CONNECTION_REUSE))


def _check_variable_names(names: Iterable[str], where: str) -> None:
    reserved = sorted(name for name in names if str(name).startswith("ansible_"))
    if reserved:
        raise ValueError(f"{where} sets {', '.join(reserved)}: connection settings are Sahab's own "
                         "(host keys are always verified)")


def build_inventory(hosts: Iterable[Host], known_hosts_file: str | None = None) -> dict[str, Any]:
    """The YAML-shaped inventory ansible-runner takes: every group present, host vars per host, and the
    connection settings that verify host keys (see the module doc)."""
    groups: dict[str, dict[str, Any]] = {group: {"hosts": {}} for group in GROUPS}
    for host in hosts:
        _check_variable_names(host.vars, f"host {host.name}")
        groups[host.group]["hosts"][host.name] = {
            "ansible_host": host.address,
            "ansible_port": host.port,
            "ansible_user": host.user,
            **dict(host.vars),
        }
    return {"all": {"children": groups, "vars": {"ansible_host_key_checking": True,
                                                 "ansible_ssh_args": ssh_args(known_hosts_file)}}}


def _unsafe(value: Any) -> Any:
    """Every string wrapped in Ansible's JSON marker for unsafe text (read as a string, whatever it looks like,
    and never templated). YAML's `!unsafe` tag is not enough in ansible-core 2.19: it still resolves `'true'` and
    `'123'` to a bool and an int."""
    if isinstance(value, str):
        return {"__ansible_unsafe": value}
    if isinstance(value, Mapping):
        return {key: _unsafe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_unsafe(item) for item in value]
    return value


def ansible_json(data: Mapping[str, Any]) -> str:
    """JSON for Ansible (an inventory, an extra-vars file) in which every string value is unsafe text."""
    return json.dumps(_unsafe(data), sort_keys=True)


def content_hash(playbook_dir: Path, inventory: Mapping[str, Any], variables: Mapping[str, Any]) -> str:
    """sha256 over every file of the playbook directory, the inventory and the variables.

    Any change to a role, the hosts or a variable changes it, and so makes Pulumi converge again.
    """
    digest = hashlib.sha256()
    for path in sorted(p for p in playbook_dir.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts or path.suffix == ".md":  # documentation converges nothing
            continue
        digest.update(str(path.relative_to(playbook_dir)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    digest.update(json.dumps([inventory, variables], sort_keys=True, default=str).encode())
    return digest.hexdigest()


def outcomes_from_stats(
    stats: Mapping[str, Mapping[str, int]] | None,
    hosts: Iterable[str],
    messages: Mapping[str, str],
    notes: Mapping[str, list[str]] | None = None,
    reached_end: Iterable[str] | None = None,
    stopped: str = "",
) -> dict[str, HostOutcome]:
    """Per-host outcomes from ansible's play recap; a host missing from the recap never ran: unreachable.

    ``reached_end``: the hosts that ran the end play (END_PLAY; None: not known). A host the recap shows ok or
    changed that is not among them did not converge: ansible-playbook runs no later play once every host of a
    play's batch has failed (executor/playbook_executor.py, `len(batch) == failed_hosts_count`), and the hosts it
    left out show no failure in the recap. ``stopped`` says where the run stopped (the last play it started).
    """
    stats = stats or {}
    reached = None if reached_end is None else set(reached_end)
    outcomes = {}
    for name in hosts:
        counts = {key: int(stats.get(key, {}).get(name, 0)) for key in ("ok", "changed", "failures", "dark", "skipped")}
        if reached is not None and name in reached:
            counts["ok"] -= 1  # the end play's own task: the counts stay the playbook's
        message = messages.get(name)
        if counts["dark"]:
            status = "unreachable"
        elif counts["failures"]:
            status = "failed"
        elif not (counts["changed"] or counts["ok"]):
            status = "unreachable"
        elif reached is not None and name not in reached:
            status = "failed"
            message = ("the playbook stopped before its last play" + (f", in the play {stopped!r}" if stopped else "")
                       + " (every host of one of its batches failed, and Ansible then runs no later play for any "
                       "host): this host did not run to the end")
        else:
            status = "changed" if counts["changed"] else "ok"
        if message is None:
            message = "" if status in ("ok", "changed") else "no result from this host"
        outcomes[name] = HostOutcome(
            host=name,
            status=status,
            ok=counts["ok"],
            changed=counts["changed"],
            failed=counts["failures"],
            unreachable=counts["dark"],
            skipped=counts["skipped"],
            message=message[:MESSAGE_LIMIT],
            notes=tuple((notes or {}).get(name, ())),
        )
    return outcomes


# Lines of a failed command's stderr kept in its message: enough to say why, short enough to read.
STDERR_LINES = 5
REDACTED = "<secret>"


def _describe_failure(data: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    """host-free 'role : task [item]: rc=N: first stderr lines (msg)' of one failed task."""
    task = str(data.get("task") or "task")
    role = data.get("role")
    where = f"{role} : {task}" if role and not task.startswith(f"{role} :") else task
    item = result.get("_ansible_item_label", result.get("item"))
    if item is not None and not isinstance(item, (dict, list)):
        where += f" [item {item}]"
    elif isinstance(item, dict):
        where += f" [item {item.get('name') or item.get('key') or item.get('path') or '?'}]"
    if "censored" in result:
        return f"{where}: failed; its output is hidden (no_log)"
    parts = []
    if result.get("rc") is not None:
        parts.append(f"rc={result['rc']}")
    stderr = [line for line in str(result.get("stderr") or "").splitlines() if line.strip()]
    if stderr:
        parts.append(" | ".join(stderr[:STDERR_LINES]))
    msg = str(result.get("msg") or result.get("reason") or result.get("exception") or "").strip()
    if msg and (not stderr or msg not in ("non-zero return code",)):
        parts.append(msg)
    return f"{where}: {': '.join(parts) or 'failed'}"


def _redact(text: str, secrets: Iterable[str]) -> str:
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def _failure_messages(
    events: Iterable[Mapping[str, Any]],
    secrets: Iterable[str] = (),
    stats: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, str]:
    """Per host, the failure that failed it: role, task, the failing loop item, rc and the first lines of stderr.
    no_log tasks arrive censored from ansible itself; values of secret variables are replaced wherever they appear.

    Only what counted is named, by the recap's counts (``stats``): ansible-core sends v2_runner_on_unreachable for
    a task with ignore_unreachable too (strategy/__init__.py), and ansible-runner's event carries no flag for it,
    so an unreachable event counts only for a host the recap shows unreachable, and then the last one (the host
    is dropped after it). A failure that a block rescued comes as runner_on_failed with no flag either, and before
    the one that failed the host: with `rescued` R, the (R+1)th failure is it. runner_item_on_failed carries no
    ignore_errors flag at all, so a loop's failure is read from its runner_on_failed (which names the item)."""
    secrets = list(secrets)
    stats = stats or {}
    failed: dict[str, list[Mapping[str, Any]]] = {}
    unreachable: dict[str, list[Mapping[str, Any]]] = {}
    for event in events:
        kind = event.get("event")
        data = event.get("event_data", {})
        host = data.get("host")
        if not host:
            continue
        if kind == "runner_on_failed" and not data.get("ignore_errors"):
            failed.setdefault(host, []).append(data)
        elif kind == "runner_on_unreachable":
            unreachable.setdefault(host, []).append(data)
    messages: dict[str, str] = {}
    for host in {*failed, *unreachable}:
        if unreachable.get(host) and int(stats.get("dark", {}).get(host, 0)):
            data = unreachable[host][-1]
        elif failed.get(host):
            rescued = int(stats.get("rescued", {}).get(host, 0))
            data = failed[host][min(rescued, len(failed[host]) - 1)]
        else:
            continue  # only ignored unreachable deliveries: nothing failed this host
        result = data.get("res") or {}
        if isinstance(result.get("results"), list):
            items = [r for r in result["results"] if isinstance(r, Mapping) and r.get("failed")]
            if items:
                result = items[0]
        refused_key = _host_key_problem(str(result.get("msg") or ""))
        described = f"{data.get('task', 'task')}: {refused_key}" if refused_key else _describe_failure(data, result)
        messages[host] = _redact(described, secrets)
    return messages


REACHED_END = "sahab_run_reached_end"
# Appended after the playbook it runs (`run_playbook`): every host still in the run when it ends says so, whatever
# tags or limit were given (`always`); a host that is not in this list did not run to the end.
END_PLAY = [{
    "name": "Note the hosts that ran to the end of the run",
    "hosts": "all",
    "gather_facts": False,
    "become": False,
    "tasks": [{
        "name": "Say this host reached the end",
        "ansible.builtin.set_stats": {"data": {REACHED_END: ["{{ inventory_hostname }}"]}, "per_host": False,
                                      "aggregate": True},
        "tags": ["always"],
    }],
}]


def _last_play(events: Iterable[Mapping[str, Any]]) -> str:
    """The name of the last play the run started."""
    name = ""
    for event in events:
        if event.get("event") == "playbook_on_play_start":
            name = str((event.get("event_data") or {}).get("play") or name)
    return name


def _secret_strings(value: Any) -> list[str]:
    """Every string inside a secret variable's value (8 characters or more: shorter ones are not secrets)."""
    if isinstance(value, str):
        return [value] if len(value) >= 8 else []
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _secret_strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _secret_strings(v)]
    return []


def _host_key_problem(ssh_message: str) -> str | None:
    """ssh's refusal of a host key, said in one sentence (ssh's own banner is long and gets cut)."""
    if "Host key verification failed" not in ssh_message:
        return None
    if "REMOTE HOST IDENTIFICATION HAS CHANGED" in ssh_message:
        return ("SSH host key verification failed: the key the server offered differs from the one in known_hosts "
                "(another machine answering at its address, or a reinstalled server); nothing was sent to it. "
                "Check the server's key out of band and update known_hosts")
    return ("SSH host key verification failed: there is no key in known_hosts for this address; nothing was sent "
            "to it. Add the server's host key, checked out of band, to known_hosts")


def _skip_notes(events: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The roles' own 'SKIPPED ...' messages per host, in the order they were said."""
    notes: dict[str, list[str]] = {}
    for event in events:
        data = event.get("event_data", {})
        if event.get("event") not in ("runner_on_ok", "runner_item_on_ok"):
            continue
        if data.get("task_action") != "ansible.builtin.debug":
            continue
        msg = str((data.get("res") or {}).get("msg", ""))
        if msg.startswith("SKIPPED"):
            notes.setdefault(data.get("host", ""), []).append(msg)
    return notes


def _task_seconds(events: list[Mapping[str, Any]]) -> dict[str, float]:
    """Time from each task's start to the next task's (or the play recap's) start."""
    marks = [
        (e.get("created"), (e.get("event_data") or {}).get("task", ""))
        for e in events
        if e.get("event") in ("playbook_on_task_start", "playbook_on_stats") and e.get("created")
    ]
    seconds: dict[str, float] = {}
    for (start, task), (end, _) in itertools.pairwise(marks):
        elapsed = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
        seconds[task] = seconds.get(task, 0.0) + elapsed
    return seconds


def _artifacts(events: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The set_stats data the playbook returned (carried by the final stats event)."""
    for event in reversed(events):
        if event.get("event") == "playbook_on_stats":
            return dict((event.get("event_data") or {}).get("artifact_data") or {})
    return {}


def _ansible_env() -> dict[str, str]:
    """ansible-playbook and ssh-agent from the running Python's environment, whatever PATH the caller had; host
    key checking on whatever the caller's environment says (ansible-runner would otherwise turn it off)."""
    bin_dir = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "/usr/bin:/bin")
    return {"PATH": f"{bin_dir}:{path}", "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0",
            "ANSIBLE_HOST_KEY_CHECKING": "True"}


def _private_file(path: Path, text: str) -> str:
    path.touch(mode=0o600)
    path.write_text(text)
    return str(path)


def run_playbook(
    hosts: list[Host],
    *,
    private_key: str | None,
    known_hosts: str | None,
    variables: Mapping[str, Any] | None = None,
    failure_budget: int = 0,
    playbook_dir: Path = ANSIBLE_DIR,
    playbook: str = "site.yml",
    limit: str | None = None,
    tags: list[str] | None = None,
    forks: int | None = None,
    secret_variables: Mapping[str, Any] | None = None,
) -> RunResult:
    """Converge ``hosts`` with the playbook; every host runs to the end whatever happens to the others.

    ``private_key`` None uses the operator's ssh-agent. ``known_hosts`` holds the hosts' public keys in
    known_hosts format; None verifies them against the operator's ~/.ssh/known_hosts. Never unverified.
    ``failure_budget`` is how many hosts may fail or be unreachable before the run counts as failed.
    ``secret_variables`` join ``variables``; their values never appear in a failure message.
    """
    import ansible_runner.interface  # heavy: imported when a run happens, not when Pulumi loads the component

    if not hosts:
        raise ValueError("no hosts to converge")
    work = Path(tempfile.mkdtemp(prefix="sahab-ansible-"))
    try:
        os.chmod(work, 0o700)
        shutil.copytree(playbook_dir, work / "project", ignore=shutil.ignore_patterns("__pycache__", "*.retry"))
        _check_variable_names(dict(variables or {}), "the variables")
        known_hosts_file = None
        if known_hosts is not None:
            known_hosts_file = _private_file(work / "known_hosts", known_hosts.rstrip("\n") + "\n")
        (work / "inventory").mkdir(mode=0o700)
        inventory_file = _private_file(work / "inventory" / "hosts.json",
                                       ansible_json(build_inventory(hosts, known_hosts_file)))
        # Variables may hold secrets: a 0600 file in the private directory, never the command line (ps).
        _check_variable_names(dict(secret_variables or {}), "the secret variables")
        variables_file = _private_file(work / "variables.json",
                                       ansible_json({**dict(variables or {}), **dict(secret_variables or {})}))
        # ssh's connection sockets live and die with the run: no master from another run is ever reused.
        envvars = {**_ansible_env(), "ANSIBLE_SSH_CONTROL_PATH_DIR": str(work / "cp")}
        # The playbook, then a play that notes who reached its end (outcomes_from_stats: reached_end).
        wrapper = work / "project" / ".sahab-run.yml"
        wrapper.write_text(json.dumps([{"name": "The playbook", "ansible.builtin.import_playbook": playbook},
                                       *END_PLAY]))
        runner = ansible_runner.interface.init_runner(  # what ansible_runner.run() does, in subprocess mode
            private_data_dir=str(work),
            playbook=wrapper.name,
            inventory=inventory_file,
            cmdline=f"-e @{variables_file}",
            ssh_key=private_key or None,
            limit=limit,
            tags=",".join(tags) if tags else None,
            forks=forks or min(MAX_FORKS, max(5, len(hosts))),
            envvars=envvars,
            quiet=True,
            suppress_env_files=True,  # the key goes to ssh-agent through a FIFO, never into env/ssh_key
        )
        # Subprocess, not pexpect (which ansible_runner.run() always uses for a playbook): pexpect forks and runs
        # Python in the child before exec, and where another thread is in gRPC meanwhile (a Pulumi provider serving
        # the engine, which is where this runs) gRPC's fork handler aborts that child now and then, so the playbook
        # "ended by a signal" (SIGABRT) before it started: about 1 spawn in 100 beside a busy gRPC channel here.
        # Popen execs from C without those handlers. The playbook prompts for nothing (keys, known hosts, sudo
        # without a password), so it needs no terminal.
        runner.runner_mode = "subprocess"
        runner.run()
        if not runner.stats:  # no play recap: the playbook never ran (syntax error, ...) or was stopped before it
            raise RuntimeError(_no_recap(runner))
        names = [h.name for h in hosts]
        if limit:
            names = [n for n in names if n in _limited(limit, hosts)]
        events = list(runner.events)
        messages = _failure_messages(events, _secret_strings(dict(secret_variables or {})), runner.stats)
        artifacts = _artifacts(events)
        reached = artifacts.pop(REACHED_END, [])
        outcomes = outcomes_from_stats(runner.stats, names, messages, _skip_notes(events), reached,
                                       _last_play(events))
        return RunResult(
            outcomes=outcomes,
            failure_budget=failure_budget,
            rc=runner.rc,
            artifacts=artifacts,
            task_seconds=_task_seconds(events),
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _no_recap(runner) -> str:
    """Why a run ended without a play recap. ansible-runner (subprocess mode) gives a process ended by a signal a
    negative exit code; Sahab's own runs send it none (they set no timeout), so the signal came from elsewhere
    (another process, the kernel) or from a crash."""
    if runner.status == "failed" and runner.rc is not None and runner.rc < 0:
        return (f"ansible-playbook was ended by {_signal_name(-runner.rc)} before its play recap (something killed "
                f"it, or it crashed): no host's outcome is known")
    return f"ansible-playbook did not run ({runner.status}, rc={runner.rc}): {_error_line(runner)}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _error_line(runner) -> str:
    """Ansible's own ERROR line, if it printed one (never the variables: they are on no command line or output)."""
    for stream in (runner.stderr, runner.stdout):
        for line in stream.read().splitlines():
            if line.startswith(("ERROR!", "[ERROR]")):
                return line[:MESSAGE_LIMIT]
    return "no error message"


def _limited(limit: str, hosts: list[Host]) -> set[str]:
    """Host names a simple ``--limit`` (names and group names, comma or colon separated) selects."""
    selected = set()
    for token in limit.replace(":", ",").split(","):
        token = token.strip()
        selected |= {h.name for h in hosts if token in (h.name, h.group)}
    return selected

"""One `sahab init` run: probe, let the person choose, propose, write, judge, say what to run next."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import yaml

from sahab.project import Project
from sahab.starter.facts import HostFacts, ProbeFailed
from sahab.starter.probe import probe_all
from sahab.starter.propose import Choices, Proposal, Refused, propose, size_text
from sahab.starter.ssh import SshTarget, known_hosts_name, recorded_keys, user_known_hosts
from sahab.starter.stackfile import render

# Free space on / below which init says so: the platform's images (CNI, monitoring, the training image) and the
# kubelet's logs take tens of GB, and the kubelet evicts pods when its image filesystem runs low.
ROOT_FREE_BYTES = 20 * 10**9


def init(project: Project, path: Path, hosts: Sequence[tuple[str, int]], choices: Choices, *,
         identity: str | None, accept_new: bool, interactive: bool, probe_timeout: float,
         bench_command: str | None, out: TextIO) -> int:
    try:
        return _init(project, path, hosts, choices, identity=identity, accept_new=accept_new,
                     interactive=interactive, probe_timeout=probe_timeout, bench_command=bench_command, out=out)
    except Refused as refused:
        for line in refused.lines:
            print(f"error: {line}", file=sys.stderr)
        print("no stack written", file=sys.stderr)
        return 2


def _init(project: Project, path: Path, hosts: Sequence[tuple[str, int]], choices: Choices, *,
          identity: str | None, accept_new: bool, interactive: bool, probe_timeout: float,
          bench_command: str | None, out: TextIO) -> int:
    work = Path(tempfile.mkdtemp(prefix="sahab-init-"))
    try:
        os.chmod(work, 0o700)
        accepted, recorded = work / "accepted_hosts", work / "recorded_hosts"
        accepted.touch()
        recorded.write_text(_recorded_known_hosts(path))
        files = (accepted, recorded, *user_known_hosts())
        targets = [SshTarget(address, port, choices.user, identity, files, accept_new) for address, port in hosts]
        print(f"probing {len(targets)} server(s) over SSH as {choices.user} ...", file=out, flush=True)
        answers = probe_all(targets, probe_timeout)
        failed = [str(a) for a in answers if isinstance(a, ProbeFailed)]
        if failed:
            raise Refused(failed)
        facts: list[HostFacts] = list(answers)  # type: ignore[arg-type]
        keys = [recorded_keys(files, t.address, t.port) for t in targets]
        for f in facts:
            _describe(f, out)
        if interactive:
            choices = _ask(facts, choices, out)
        if not choices.emirate:
            from sahab.commands.init import EMIRATES

            raise Refused([f"--emirate: required (where the servers stand, for the residency evidence); allowed: "
                           f"{', '.join(EMIRATES)}"])
        if not choices.city:
            choices = Choices(**{**choices.__dict__, "city": choices.emirate.replace("-", " ").title()})
        proposal = propose(facts, choices, keys)
        text = render(proposal)
        _schema(text)
        policy_config = _policy_config(project, choices)
        _write(path, text, out)
        if policy_config is not None:
            _write(policy_config[0], policy_config[1], out)
        verdict = judge(project, choices.name, out)
        if bench_command:
            from sahab.starter.bench import bench_all

            verdict = max(verdict, bench_all(proposal, targets, bench_command, path, out))
        _next_steps(project, proposal, identity, out)
        return verdict
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _recorded_known_hosts(path: Path) -> str:
    """The host keys an existing stack file records (a re-run trusts them), as known_hosts lines."""
    try:
        doc = yaml.safe_load(path.read_text()) if path.is_file() else None
        sites = doc["config"]["sahab:fleet"]["sites"]
        lines = [f"{known_hosts_name(str(h['address']), int(h.get('port', 22)))} {key}"
                 for site in sites for h in site.get("hosts", ()) for key in h.get("ssh_host_keys", ())]
    except (yaml.YAMLError, KeyError, TypeError, ValueError, AttributeError, OSError):
        return ""
    return "".join(f"{line}\n" for line in lines if "\n" not in line)


def _describe(f: HostFacts, out: TextIO) -> None:
    gpus = f.nvidia_gpus
    free = f"{f.root_free_bytes / 1e9:.0f} GB free on /" if f.root_free_bytes is not None else "free space unknown"
    print(f"  {f.address}: {f.hostname or '?'}: {f.os_name or 'OS unknown'} {f.arch}; {f.cpu_model} "
          f"({f.cpu_class}); {f.cpus} CPUs, {f.memory_gib} GiB; "
          f"{len(f.unused_disks)} unused disk(s){f'; {len(gpus)} NVIDIA GPU(s)' if gpus else ''}; "
          f"time {f.time_sync}; {free}", file=out)
    notes = list(f.notes)
    if f.root_free_bytes is not None and f.root_free_bytes < ROOT_FREE_BYTES:
        notes.append(f"only {f.root_free_bytes / 1e9:.0f} GB free on /: containerd's images and the logs want "
                     f"{ROOT_FREE_BYTES / 1e9:.0f} GB or more")
    for note in notes:
        print(f"    note: {note}", file=out)


def _ask(facts: list[HostFacts], choices: Choices, out: TextIO) -> Choices:
    from sahab.commands.init import EMIRATES
    from sahab.starter.prompts import ask

    def read(prompt: str) -> str | None:
        out.write(prompt)
        out.flush()
        line = sys.stdin.readline()
        if not line:
            out.write("\n")
            return None
        if not sys.stdin.isatty():
            out.write(line if line.endswith("\n") else line + "\n")  # a scripted answer shows like a typed one
        return line.rstrip("\n")

    return ask(facts, choices, EMIRATES, read, lambda text: print(text, file=out))


def _schema(text: str) -> None:
    """The fleet as the program will read it; a ConfigError (exit 2, the config path) leaves nothing written."""
    from sahab.components.fleet_config import parse_fleet

    parse_fleet(yaml.safe_load(text)["config"]["sahab:fleet"])


def _write(path: Path, text: str, out: TextIO) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        if path.read_bytes() == text.encode():
            print(f"{path}: unchanged", file=out)
            return
        backup = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup)
        print(f"{path}: the old file is kept as {backup.name}", file=out)
    from sahab.workloads.outputs import write_atomic

    write_atomic(path, text)
    print(f"wrote {path}", file=out)


def policy_config_path(project: Project, stack: str) -> Path:
    """The stack's trusted policy config: in Sahab's own checkout, the pack's policies/config/<stack>.json."""
    return project.root / "policies" / "config" / f"{stack}.json"


def _policy_config(project: Project, choices: Choices) -> tuple[Path, str] | None:
    """The site's mirror shows no region, so only the stack's trusted policy config can allow it (the stack's own
    sahab:fleet.registries cannot): the person running init names it, and init writes it beside the stack."""
    if not choices.registry_mirror:
        return None
    document = {"kubernetes-all-workload-image-registry-allowed": {"allowedRegistries": [choices.registry_mirror]}}
    return policy_config_path(project, choices.name), json.dumps(document, indent=2) + "\n"


def judge(project: Project, stack: str, out: TextIO) -> int:
    """The schema, readiness and policy verdicts on the written stack, as `sahab plan` and `sahab check` give them;
    1 when the fleet would not come up or a mandatory policy fails."""
    from sahab.engine import plan
    from sahab.policy_check import check_plan, policy_config_layers, preload
    from sahab.readiness import judge as readiness_of
    from sahab.readiness.referenced import referenced_resources

    print("judging it (schema, readiness, policy) ...", file=out, flush=True)
    preload()
    planned = plan(project.root, stack, preview=True)
    referenced, _ = referenced_resources(planned)
    readiness = readiness_of(planned.resources, referenced)
    print(f"schema: ok ({len(planned.resources)} resources planned)", file=out)
    if readiness.ok:
        print("readiness: ready", file=out)
    else:
        print(f"readiness: not ready ({len(readiness.problems)} problem(s))", file=out)
        for p in readiness.problems:
            print(f"  {p.cluster}: {p.object}: {p.problem}", file=out)
    trusted = policy_config_path(project, stack)
    checked = check_plan(planned, policy_config_layers(project.root, stack, trusted if trusted.is_file() else None))
    s = checked.summary()
    print(f"policy: {'passed' if checked.exit_code == 0 else 'failed'} ({s['mandatory']} mandatory, "
          f"{s['advisory']} advisory, {s['waived']} waived)", file=out)
    rules: dict[str, list] = {}
    for v in checked.mandatory:
        rules.setdefault(v.rule_id, []).append(v)
    for rule, found in sorted(rules.items()):  # one line per rule: its first finding and how many more
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        print(f"  mandatory {rule} {found[0].name}: {found[0].message}{more}", file=out)
    if "SAHAB-K8S-012" in rules:
        print(f"  every image must come from an in-country registry: rerun with --registry-mirror HOST:PORT "
              f"(the site's mirror) --force, or run `sahab check --stack {stack}` for the full report", file=out)
    return 0 if readiness.ok and checked.exit_code == 0 else 1


def _next_steps(project: Project, p: Proposal, identity: str | None, out: TextIO) -> None:
    stack = p.choices.name
    steps = []
    if Path.cwd().resolve() != project.root:
        steps.append(f"cd {project.root}")
    steps += [f"sahab doctor --stack {stack}",
              f"pulumi stack select --create {stack}"]
    if identity:
        steps.append(f"pulumi config set --secret onpremSshPrivateKey -s {stack} < {identity}")
    with_config = ""
    if policy_config_path(project, stack).is_file():
        with_config = f" --policy-pack-config {policy_config_path(project, stack).relative_to(project.root)}"
    steps += [f"pulumi preview -s {stack} --policy-pack policies{with_config}",
              f"pulumi up -s {stack} --policy-pack policies{with_config}"]
    print("next:", file=out)
    for step in steps:
        print(f"  {step}", file=out)
    disks = [h for h in p.hosts if h.data_disk]
    if disks:
        print("pulumi up erases these disks for the encrypted volumes: " + ", ".join(
            f"{h.name} {h.data_disk.stable_id} ({size_text(h.data_disk.size_bytes)})" for h in disks), file=out)

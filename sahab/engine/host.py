"""The language host: run a program in its own process against Sahab's engine, as `pulumi preview`/`pulumi up` run it.

For one run, Sahab serves the ResourceMonitor and Engine gRPC services on a loopback port (`monitor`) and starts
the program's interpreter (`toolchain`) on Sahab's executor script (`langhost/`) with the arguments and the
environment the Pulumi CLI's language host gives it. The program imports its own SDKs and packages; nothing of
Sahab is importable there. Its output goes to Sahab's stderr, never into machine output. A program that does
not finish in time is stopped with everything it started; however it ends, the caller gets a plan or one
SahabError.

A check runs the program twice, at once: the preview (`dry_run` true: provider outputs unknown) and the update
(`dry_run` false: every provider output a value of its declared type, so `apply()` bodies run).
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sahab.engine import inventory, stack_refs, toolchain
from sahab.engine.monitor import Monitor, Recording, servicers
from sahab.engine.outputs import ProviderOutputs, Where
from sahab.engine.plan_types import PREVIEW, UPDATE, Plan, PlannedResource
from sahab.engine.sdk_types import SdkTypes
from sahab.engine.stack_refs import StackReferenceCycle
from sahab.engine.wire import known, to_plain
from sahab.errors import ConfigError, ProgramError, SahabError, UsageError, one_line
from sahab.project import REDACTED, Project, StackConfig, find_project, load_stack, program_entry, project_dir, scrub

# How long a program may run before it is stopped (seconds); `--timeout` or this variable overrides it.
TIMEOUT_ENV = "SAHAB_PROGRAM_TIMEOUT"
DEFAULT_TIMEOUT = 300.0
# The executor's exit statuses (langhost/sahab-language-python-exec): an error was reported to the engine (the
# CLI's own code), the interpreter has no Pulumi SDK, its SDK cannot run a program.
USER_ERROR, NO_SDK, CANNOT_RUN = 32, 33, 34
# Tells the executor to fork the update run: [its engine's address, a file for its output, a file for its status].
UPDATE_RUN = "SAHAB_UPDATE_RUN"

OnResource = Callable[[str, str], None]
# Linux takes at most 32 pages (128 KiB, MAX_ARG_STRLEN) for one environment variable, `NAME=value` and its NUL.
# The Pulumi CLI hands a program its whole config in one, PULUMI_CONFIG (pulumi-language-python; the SDK's
# runtime/config.py reads nothing else), so a config above it cannot start under `pulumi preview` or `up` either.
MAX_ENV_STRING = 128 * 1024


@dataclass
class Run:
    """What every run of one plan shares: its deadline, isolation and the stacks it references."""

    deadline: float  # time.monotonic() by which every run must be done
    timeout: float  # the limit as the user gave it, for the message
    isolated: bool
    refs: stack_refs.References


def plan(program_dir: Path | str | None = None, stack: str = "dev", *, preview: bool = False,
         timeout: float | None = None, isolated: bool = False, on_resource: OnResource | None = None) -> Plan:
    """Run the program in `program_dir` (default: the project of the current folder) for `stack` once.

    `preview=True` is `pulumi preview` (what `sahab plan` shows): provider outputs unknown. The default,
    `preview=False`, is the run `pulumi up` makes: every provider output a value of its declared type, for tests
    that validate the objects a stack would hold once it is up."""
    project, config, run = _prepare(program_dir, stack, timeout, isolated)
    return run_stack(project, config, PREVIEW if preview else UPDATE, run, on_resource)


def plan_phases(program_dir: Path | str | None = None, stack: str = "dev", *, timeout: float | None = None,
                isolated: bool = False, on_resource: OnResource | None = None) -> tuple[Plan, Plan | None]:
    """The preview and the update run of a program: (preview, update). One process starts them both: it imports
    the Pulumi SDK and the provider SDKs the program names, then forks, and each copy runs the program afresh
    against its own engine (`langhost/`), so the second run does not pay the imports again.

    A program that previews but fails in the update run (it parses a secret setting offline cannot decrypt,
    it refuses to deploy placeholder config) gives update None, and the preview says why in `update_failure`
    and in a notice: it is judged on its preview alone."""
    project, config, run = _prepare(program_dir, stack, timeout, isolated)
    interpreter = toolchain.resolve(project, isolated=isolated)
    with tempfile.TemporaryDirectory(prefix="sahab-update-") as spool:
        output, status_file = Path(spool) / "output", Path(spool) / "status"
        previewed, updated = _Served(project, config, PREVIEW, run, interpreter, on_resource), \
            _Served(project, config, UPDATE, run, interpreter, None)
        try:
            forked = {UPDATE_RUN: json.dumps([updated.address, str(output), str(status_file)])}
            status, out, err = _execute(project, config, PREVIEW, run, interpreter, previewed.address, True, forked)
        finally:
            previewed.close()
            updated.close()
        preview = previewed.plan(status, out, err, relay=True)
        update_status = int(status_file.read_text()) if status_file.is_file() else -signal.SIGKILL
        printed = output.read_bytes() if output.is_file() else b""
    try:
        return preview, updated.plan(update_status, printed, printed, relay=False)
    except (ProgramTimeout, StackReferenceCycle):
        raise
    except ProgramError as exc:  # what the update run printed repeats the preview's: shown when it failed
        _relay(printed, config.secret_texts)
        preview.update_failure = str(exc)
        preview.notices.append(f"judged on the preview alone: the update run (the values `pulumi up` would "
                               f"compute) failed: {exc}")
        return preview, None


def _prepare(program_dir: Path | str | None, stack: str, timeout: float | None,
             isolated: bool) -> tuple[Project, StackConfig, Run]:
    project = find_project(project_dir(program_dir))
    program_entry(project)
    config = load_stack(project, stack)  # usage and config errors surface here, before a process starts
    inventory.load(config.values, str(config.path))
    limit = resolve_timeout(timeout)
    return project, config, Run(time.monotonic() + limit, limit, isolated, stack_refs.References())


def resolve_timeout(timeout: float | None) -> float:
    if timeout is not None:
        if not 0 < timeout < math.inf:
            raise UsageError(f"--timeout {timeout}: must be a positive number of seconds")
        return float(timeout)
    raw = os.environ.get(TIMEOUT_ENV)
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw) if raw.strip().isascii() else 0.0
    except ValueError:
        value = 0.0
    if not 0 < value < math.inf:
        raise UsageError(f"{TIMEOUT_ENV}={raw!r}: must be a positive, finite number of seconds")
    return value


# ---------------------------------------------------------------------------------------------------------
# One run


_types: dict[tuple[Path, ...], SdkTypes] = {}
_types_lock = threading.Lock()


def sdk_types(site_packages: tuple[Path, ...]) -> SdkTypes:
    with _types_lock:
        if site_packages not in _types:
            _types[site_packages] = SdkTypes(site_packages)
        return _types[site_packages]


def run_stack(project: Project, config: StackConfig, phase: str, run: Run, on_resource: OnResource | None = None,
              interpreter: toolchain.Interpreter | None = None) -> Plan:
    """Run the program once for `config`'s stack and return what it registered; its output goes to stderr."""
    interpreter = interpreter or toolchain.resolve(project, isolated=run.isolated)
    served = _Served(project, config, phase, run, interpreter, on_resource)
    try:
        status, out, err = _execute(project, config, phase, run, interpreter, served.address, True)
    finally:
        served.close()
    return served.plan(status, out, err, relay=True)


class _Served:
    """The engine's side of one run: its gRPC server on loopback and what the program registers there."""

    def __init__(self, project: Project, config: StackConfig, phase: str, run: Run,
                 interpreter: toolchain.Interpreter, on_resource: OnResource | None):
        import grpc
        from pulumi.runtime.proto import engine_pb2_grpc, resource_pb2_grpc

        self.project, self.config, self.phase, self.interpreter = project, config, phase, interpreter
        self.refs = run.refs
        where = Where(aws_region=known(config.values.get("aws:region")) or "me-central-1",
                      azure_location=known(config.values.get("azure-native:location")) or "uaenorth")
        self.recording = Recording(stack=config.name, project=project.name)

        def referenced(reference: str) -> Plan | None:
            return stack_refs.referenced_plan(reference, project, config, run.refs, _deployed(run))

        self.monitor = Monitor(self.recording, phase, ProviderOutputs(sdk_types(interpreter.site_packages), where),
                               inventory.load(config.values, str(config.path)), referenced, project.main_dir,
                               on_resource)
        resource_monitor, engine = servicers(self.monitor)
        self.server = grpc.server(ThreadPoolExecutor(max_workers=32, thread_name_prefix="sahab-engine"))
        resource_pb2_grpc.add_ResourceMonitorServicer_to_server(resource_monitor, self.server)
        engine_pb2_grpc.add_EngineServicer_to_server(engine, self.server)
        self.address = f"127.0.0.1:{self.server.add_insecure_port('127.0.0.1:0')}"
        self.server.start()

    def close(self) -> None:
        self.server.stop(grace=None)
        self.monitor.close()

    def plan(self, status: int, out: bytes, err: bytes, relay: bool) -> Plan:
        """However the program ended (`status`, what it printed), its plan or one SahabError."""
        recording, project, config = self.recording, self.project, self.config
        secrets = config.secret_texts
        if relay:
            _relay(out + err, secrets)
        entry = program_entry(project)
        try:
            if recording.fatal is not None:
                raise recording.fatal if isinstance(recording.fatal, SahabError) else \
                    ProgramError(f"{entry}: {type(recording.fatal).__name__}: {one_line(recording.fatal)}")
            _judge_exit(status, recording, entry, self.interpreter, err)
        except ProgramError as exc:  # its message quotes the program: a secret setting's text stays out of it
            exc.args = tuple(scrub(list(exc.args), secrets))
            raise
        resources = _add_default_providers(recording, project, config)
        notices = [*([self.interpreter.notice] if self.interpreter.notice else []), *config.warnings]
        return Plan(project=project.name, stack=config.name, config=config.redacted, resources=resources,
                    outputs=scrub(to_plain(recording.stack_outputs), secrets),
                    warnings=scrub(list(dict.fromkeys(recording.warnings)), secrets),
                    program_dir=project.root, secret_outputs=recording.stack_outputs, phase=self.phase,
                    notices=notices, places=dict(recording.places), deployed=dict(self.refs.cache),
                    secret_texts=secrets)


def _deployed(run: Run) -> stack_refs.RunStack:
    def run_referenced(folder: Path, stack: str, refs: stack_refs.References) -> Plan:
        project = find_project(folder)
        program_entry(project)
        nested = Run(run.deadline, run.timeout, run.isolated, refs)
        return run_stack(project, load_stack(project, stack), UPDATE, nested)

    return run_referenced


def _execute(project: Project, config: StackConfig, phase: str, run: Run, interpreter: toolchain.Interpreter,
             address: str, relay: bool, extra: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    """Start the program's process as the CLI's language host starts it (`extra`: Sahab's own words to its
    executor); wait for it within the deadline."""
    main = project.main
    entry = main.name if main.is_file() else "."
    argv = [interpreter.python, *interpreter.flags, str(toolchain.EXEC),
            "--monitor", address, "--engine", address, "--project", project.name,
            "--root_directory", str(project.root), "--stack", config.name, "--pwd", str(project.main_dir),
            "--dry_run", "true" if phase == PREVIEW else "false", "--parallel", str((os.cpu_count() or 1) * 4),
            "--organization", "organization", entry]
    added = {**_config_env(config), "PYTHONDONTWRITEBYTECODE": "1", **(extra or {})}
    env = {**interpreter.env, **added}
    remaining = run.deadline - time.monotonic()
    if remaining <= 0:
        raise _timed_out(project, run)
    pool = _pool
    hosted = pool.run(interpreter, argv[len(interpreter.flags) + 2:], env, project.main_dir,
                      project.main_dir / entry, run.deadline) if pool is not None else None
    if hosted is not None:
        status, out, err = hosted
        if status is not None:
            return status, out, err
        if relay:
            _relay(out + err, config.secret_texts)
        raise _timed_out(project, run) from None
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, cwd=project.main_dir, start_new_session=True)
    except OSError as exc:
        if exc.errno == errno.E2BIG:  # the interpreter is fine: what it was handed is more than exec takes
            size = sum(len(a.encode()) + 1 for a in argv) + sum(len(f"{k}={v}".encode()) + 1 for k, v in env.items())
            raise ProgramError(f"{interpreter.python}: cannot start the program: its environment and arguments "
                               f"({size:,} bytes, {len(env)} variables) are more than this system lets a process "
                               f"start with (execve: E2BIG); unset large variables in the environment Sahab runs "
                               f"in") from None
        raise ProgramError(f"{interpreter.python}: cannot start the program's interpreter ({exc.strerror or exc}); "
                           f"recreate its virtualenv (`pulumi install`)") from None
    while True:
        try:
            out, err = proc.communicate(timeout=0.25)
            _stop(proc)  # what it left in its session's process group ends with it (sahab.strays: the rest)
            return proc.returncode, out, err
        except subprocess.TimeoutExpired:
            if time.monotonic() < run.deadline:
                continue  # communicate() again: no output is lost
        _stop(proc)
        out, err = proc.communicate()
        if relay:
            _relay(out + err, config.secret_texts)
        raise _timed_out(project, run) from None


def _config_env(config: StackConfig) -> dict[str, str]:
    """The config as the CLI's language host passes it (compact JSON, as Go writes it); a ConfigError when it is
    more than one environment variable can hold, checked here so warm hosts (which start no process) agree."""
    added = {"PULUMI_CONFIG": json.dumps(config.values, separators=(",", ":"), ensure_ascii=False),
             "PULUMI_CONFIG_SECRET_KEYS": json.dumps(sorted(config.secret_keys), separators=(",", ":"))}
    for name, value in added.items():
        size = len(f"{name}={value}".encode()) + 1
        if size > MAX_ENV_STRING:
            raise ConfigError(str(config.path), f"config too large: {size:,} bytes as {name}, the environment "
                                                f"variable in which the Pulumi CLI hands a program its config; Linux "
                                                f"allows {MAX_ENV_STRING:,} bytes in one (MAX_ARG_STRLEN), so "
                                                f"neither `pulumi up` nor this check can start the program: split "
                                                f"the fleet into several stacks")
    return added


# ---------------------------------------------------------------------------------------------------------
# Warm hosts: many runs of programs, each in a fresh process forked from an interpreter that imported the SDKs once


class _WarmHost:
    """One interpreter running the executor's `--host` loop: a run a request, one at a time."""

    def __init__(self, interpreter: toolchain.Interpreter):
        self.proc = subprocess.Popen([interpreter.python, *interpreter.flags, str(toolchain.EXEC), "--host"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env={**interpreter.env, "PYTHONDONTWRITEBYTECODE": "1"},
                                     start_new_session=True)
        self.pending = b""

    def run(self, args: list[str], env: dict[str, str], cwd: Path, program: Path,
            deadline: float) -> tuple[int | None, bytes, bytes] | None:
        """(exit status, stdout, stderr) of one run; status None when the deadline stopped it; None when this host
        could not take the run (it is gone)."""
        with tempfile.TemporaryDirectory(prefix="sahab-run-") as spool:
            out, err = Path(spool) / "out", Path(spool) / "err"
            request = {"args": args, "env": env, "cwd": str(cwd), "program": str(program), "out": str(out),
                       "err": str(err), "modules": str(Path(spool) / "modules")}
            try:
                self.proc.stdin.write(json.dumps(request).encode() + b"\n")
                self.proc.stdin.flush()
                pid = self._reply(deadline)["pid"]
            except (OSError, ValueError, KeyError, EOFError):
                return None
            except TimeoutError:  # importing the SDKs outlasted the run's time: this host goes with it
                _stop(self.proc)
                self.proc.wait()
                return None, out.read_bytes() if out.is_file() else b"", err.read_bytes() if err.is_file() else b""
            try:
                status = self._reply(deadline)["status"]
            except TimeoutError:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:  # before it made its session, or already ended (then its status follows)
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                self._reply(None)
                status = None
            return status, out.read_bytes() if out.is_file() else b"", err.read_bytes() if err.is_file() else b""

    def _reply(self, deadline: float | None) -> dict:
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.pending:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0)
            if not select.select([fd], [], [], wait)[0]:
                raise TimeoutError
            data = os.read(fd, 65536)
            if not data:
                raise EOFError("the warm host ended")
            self.pending += data
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _stop(self.proc)
            self.proc.wait()


class _Pool:
    """Warm hosts per interpreter, each serving one run at a time; more start when runs overlap."""

    def __init__(self):
        self.idle: list[tuple[tuple, _WarmHost]] = []
        self.started: list[_WarmHost] = []
        self.lock = threading.Lock()

    def run(self, interpreter: toolchain.Interpreter, args: list[str], env: dict[str, str], cwd: Path,
            program: Path, deadline: float) -> tuple[int | None, bytes, bytes] | None:
        # What the interpreter reads as it starts picks the host; each run's process gets its whole environment.
        key = (interpreter.python, interpreter.flags,
               tuple(sorted((k, v) for k, v in interpreter.env.items() if k.startswith(_AT_START))))
        with self.lock:
            found = next((pair for pair in self.idle if pair[0] == key), None)
            if found is not None:
                self.idle.remove(found)
                warm = found[1]
            else:
                warm = _WarmHost(interpreter)
                self.started.append(warm)
        done = warm.run(args, env, cwd, program, deadline)
        if done is not None and warm.proc.poll() is None:
            with self.lock:
                self.idle.append((key, warm))
        return done

    def close(self) -> None:
        for warm in self.started:
            warm.close()


_pool: _Pool | None = None
# Environment variables an interpreter (or the executor, SAHAB_HIDDEN_ROOT) reads once, as it starts.
_AT_START = ("PYTHON", "LD_", "SAHAB_HIDDEN_ROOT")


@contextlib.contextmanager
def warm_hosts():
    """Within it, program runs (plan, plan_phases) start from warm interpreters: each run is still a process of
    its own that has run no other program, forked from one that has imported the Pulumi SDK and the provider SDKs
    of earlier runs, which a run would otherwise import afresh (~0.3-1 s of CPU). For callers that run many
    programs (the test suites); a run that no host can take starts as a fresh process."""
    global _pool
    pool, previous = _Pool(), _pool
    _pool = pool
    try:
        yield
    finally:
        _pool = previous
        pool.close()


class ProgramTimeout(ProgramError):
    """A program that did not finish within the time limit."""


def _timed_out(project: Project, run: Run) -> ProgramError:
    limit = f"{run.timeout:g} s" if not run.refs.chain else "the time left to the referencing stack"
    return ProgramTimeout(f"{program_entry(project)}: the program did not finish within {limit} and was stopped "
                        f"(raise the limit with --timeout SECONDS or SAHAB_PROGRAM_TIMEOUT)")


def _stop(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _judge_exit(status: int, recording: Recording, entry: Path, interpreter: toolchain.Interpreter,
                err: bytes) -> None:
    """However the program ended, one verdict: fine, or a ProgramError naming what went wrong."""
    if status == 0:
        if recording.errors:  # the program logged an error and went on: `pulumi up` fails it
            raise ProgramError(f"{entry}: {one_line(recording.errors[0])}")
        if recording.stack_urn is None:
            raise ProgramError(f"{interpreter.python}: this interpreter did not run the program (it registered no "
                               f"stack); point the project's virtualenv at a Python with the Pulumi SDK")
        return
    if status == NO_SDK:
        raise ProgramError(f"{interpreter.python}: the program's virtualenv has no Pulumi SDK: install the program's "
                           f"requirements there ({interpreter.python} -m pip install -r requirements.txt)")
    if status == CANNOT_RUN:
        said = [line for line in err.decode("utf-8", "replace").splitlines() if line.startswith("sahab-executor: ")]
        why = said[-1].removeprefix("sahab-executor: ") if said else "the executor failed"
        raise ProgramError(f"{interpreter.python}: {why}; install a Pulumi SDK that runs programs there "
                           f"({interpreter.python} -m pip install -U pulumi)")
    if status in (1, USER_ERROR) and recording.errors:
        raise ProgramError(one_line(recording.errors[-1]))  # the executor's line: a RunError's, or where and what
    how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
    raise ProgramError(f"{entry}: the program ended the process ({how}) before it finished")


_NOISE_START = re.compile(r"^(Traceback \(most recent call last\):|Exception ignored |Exception in thread )")


def _relay(output: bytes, secrets: frozenset[str] = frozenset()) -> None:
    """Pass on what the program printed, with the text of secret settings replaced (`scrub`); drop Python
    tracebacks (its own and teardown noise), which the error line already summarises (SAHAB_DEBUG=1 keeps them)."""
    lines = [scrub(line, secrets) for line in output.decode("utf-8", "replace").splitlines()
             if not line.startswith("sahab-executor: ")]  # the executor's own word, which the error line says
    if os.environ.get("SAHAB_DEBUG"):
        sys.stderr.write("\n".join(lines) + "\n" if lines else "")
        return
    kept: list[str] = []
    skipping = False
    for line in lines:
        if _NOISE_START.match(line):
            skipping = True
            continue
        if skipping:
            if line.startswith((" ", "\t")) or not line.strip():
                continue
            skipping = False
            if re.match(r"^[\w.]+(Error|Exception|Warning|Exit|Interrupt)\b", line):
                continue  # the exception line that closes a traceback
        kept.append(line)
    if kept:
        sys.stderr.write("\n".join(kept) + "\n")
        sys.stderr.flush()


# ---------------------------------------------------------------------------------------------------------
# Default providers: what the engine adds for resources that name no provider


def _add_default_providers(recording: Recording, project: Project, config: StackConfig) -> list[PlannedResource]:
    """Give every custom resource without an explicit provider the engine's default provider for its package,
    configured from the stack's `<package>:*` settings, and list those providers as resources."""
    defaults: dict[str, PlannedResource] = {}
    for res in recording.resources:
        if not res.custom or res.provider or res.type.startswith("pulumi:providers:"):
            continue
        package = res.type.split(":", 1)[0]
        if package == "pulumi":  # StackReference and other engine built-ins have no provider
            continue
        if package not in defaults:
            ptype = f"pulumi:providers:{package}"
            name = _default_provider_name(recording.versions.get(package))
            urn = f"urn:pulumi:{config.name}::{project.name}::{ptype}::{name}"
            defaults[package] = PlannedResource(urn, ptype, name, None, None, _provider_config(config, package),
                                                custom=True)
        res.provider = defaults[package].urn
    # Registration order depends on thread scheduling; a stable order keeps plans diffable.
    return sorted([*defaults.values(), *recording.resources], key=_plan_order)


def _default_provider_name(version: str | None) -> str:
    """`default_<version>`, the version of the provider SDK the program runs (the engine's naming)."""
    return "default_" + re.sub(r"[.-]", "_", version) if version else "default"


def _plan_order(res: PlannedResource) -> tuple[int, str]:
    rank = 0 if res.type == "pulumi:pulumi:Stack" else 1 if res.type.startswith("pulumi:providers:") else 2
    return rank, res.urn


def _provider_config(config: StackConfig, package: str) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    for key, value in config.values.items():
        ns, _, name = key.partition(":")
        if ns != package:
            continue
        if key in config.secret_keys:
            inputs[name] = REDACTED
            continue
        try:
            inputs[name] = json.loads(value) if value[:1] in "[{" else value
        except json.JSONDecodeError:
            inputs[name] = value
    return inputs

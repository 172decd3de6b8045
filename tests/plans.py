"""This checkout's example stacks, each planned once per test run and shared by every module that reads them.

A plan of prod or burst takes tens of seconds, and a dozen modules in several directories read the same four stacks.
`stack_command` runs `sahab plan|check --stack S --format json` as a user runs it (a process of its own, in the
checkout), once per run however many modules judge its exit code and report, and keeps the plans the engine made
for it (tests/recorded_cli.py). `stack_plan` hands out those plans: a stack's preview is the one `sahab plan`
made, its update run (what `pulumi up` would compute) the one `sahab check` made, so no stack is planned again for
the tests that read its resources. Each caller gets its own deep copy, so a test that edits its plan never changes
another's. Only the checkout's own program is shared: a test that plans a program it wrote calls
`sahab.engine.plan` itself. Under pytest-xdist the first worker to run a command shares it with the other
(tests/workers.py), so a run makes each once, not once per worker."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from sahab.engine import PREVIEW, UPDATE, Plan
from tests.workers import once_per_run

ROOT = Path(__file__).resolve().parent.parent
_done: dict[tuple, object] = {}
_locks: dict[tuple, threading.Lock] = {}
_guard = threading.Lock()


@dataclass(frozen=True)
class CommandRun:
    code: int
    out: str
    err: str
    plans: dict[str, Plan] = field(default_factory=dict, repr=False)  # phase -> the plan the engine returned


def _once(key: tuple, name: str, build):
    with _guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        if key not in _done:
            _done[key] = once_per_run(name, build)
    return _done[key]


def stack_command(command: str, stack: str) -> CommandRun:
    """`python -m sahab <command> --stack <stack> --format json` in the checkout: its exit code, stdout and stderr,
    and the plans it made, run once per test run (command: plan or check)."""
    def run() -> CommandRun:
        with tempfile.TemporaryDirectory(prefix=f"sahab-{command}-{stack}-") as folder:
            kept = Path(folder) / "plans.pickle"
            done = subprocess.run([sys.executable, "-m", "tests.recorded_cli", str(kept), command, "--stack", stack,
                                   "--format", "json"],
                                  cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
            plans = pickle.loads(kept.read_bytes()) if kept.is_file() else {}
        return CommandRun(done.returncode, done.stdout, done.stderr, plans)

    return _once(("command", command, stack), f"{command}-{stack}-json", run)


def stack_plan(stack: str, *, preview: bool = False) -> Plan:
    """What `plan(ROOT, stack, preview=preview)` returns: the preview `sahab plan --stack <stack>` made, or the
    update run `sahab check --stack <stack>` made (thread-safe: two threads asking for two stacks run side by
    side; two asking for the same one wait for one run)."""
    command = "plan" if preview else "check"
    ran = stack_command(command, stack)
    phase = PREVIEW if preview else UPDATE
    planned = ran.plans.get(phase)
    assert planned is not None, f"`sahab {command} --stack {stack}` made no {phase} plan (exit {ran.code}): " \
        f"{ran.err[-2000:]}"
    return copy.deepcopy(planned)

"""This checkout's example stacks, each planned once per test session and shared by every module that reads them.

A plan of prod or burst takes tens of seconds, and a dozen modules in several directories read the same four stacks.
`stack_plan` plans a (stack, preview) pair the first time anyone asks and hands every caller its own deep copy, so a
test that edits its plan never changes another's. Only the checkout's own program is cached: a test that plans a
program it wrote calls `sahab.engine.plan` itself. Under pytest-xdist the first worker to plan a pair shares it with
the other (tests/workers.py), so a run plans each pair once, not once per worker.

`stack_command` does the same for the command line: `sahab plan|check --stack S --format json`, run as a user runs it
(a process of its own, in the checkout), once per run however many modules judge its exit code and report."""

from __future__ import annotations

import copy
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from sahab.engine import Plan, plan
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


def _once(key: tuple, name: str, build):
    with _guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        if key not in _done:
            _done[key] = once_per_run(name, build)
    return _done[key]


def stack_command(command: str, stack: str) -> CommandRun:
    """`python -m sahab <command> --stack <stack> --format json` in the checkout: its exit code, stdout and stderr,
    run once per test run (command: plan or check)."""
    def run() -> CommandRun:
        done = subprocess.run([sys.executable, "-m", "sahab", command, "--stack", stack, "--format", "json"],
                              cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
        return CommandRun(done.returncode, done.stdout, done.stderr)

    return _once(("command", command, stack), f"{command}-{stack}-json", run)


def stack_plan(stack: str, *, preview: bool = False) -> Plan:
    """What `plan(ROOT, stack, preview=preview)` returns, planned at most once per session (thread-safe: two
    threads planning two stacks run side by side; two asking for the same one wait for one plan)."""
    phase = "preview" if preview else "update"
    planned = _once(("plan", stack, preview), f"plan-{stack}-{phase}", lambda: plan(ROOT, stack, preview=preview))
    return copy.deepcopy(planned)

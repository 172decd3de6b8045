"""This checkout's example stacks, each planned once per test session and shared by every module that reads them.

A plan of prod or burst takes tens of seconds, and a dozen modules in several directories read the same four stacks.
`stack_plan` plans a (stack, preview) pair the first time anyone asks and hands every caller its own deep copy, so a
test that edits its plan never changes another's. Only the checkout's own program is cached: a test that plans a
program it wrote calls `sahab.engine.plan` itself. Under pytest-xdist the first worker to plan a pair shares it with
the other (tests/workers.py), so a run plans each pair once, not once per worker."""

from __future__ import annotations

import copy
import threading
from pathlib import Path

from sahab.engine import Plan, plan
from tests.workers import once_per_run

ROOT = Path(__file__).resolve().parent.parent
_plans: dict[tuple[str, bool], Plan] = {}
_locks: dict[tuple[str, bool], threading.Lock] = {}
_guard = threading.Lock()


def stack_plan(stack: str, *, preview: bool = False) -> Plan:
    """What `plan(ROOT, stack, preview=preview)` returns, planned at most once per session (thread-safe: two
    threads planning two stacks run side by side; two asking for the same one wait for one plan)."""
    key = (stack, preview)
    with _guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        if key not in _plans:
            phase = "preview" if preview else "update"
            _plans[key] = once_per_run(f"plan-{stack}-{phase}", lambda: plan(ROOT, stack, preview=preview))
    return copy.deepcopy(_plans[key])

"""This checkout's example stacks, each planned once per test session and shared by every module that reads them.

A plan of prod or burst takes tens of seconds (a worker process runs the whole program), and a dozen modules in
several directories read the same four stacks. `stack_plan` plans a (stack, preview) pair the first time anyone asks
and hands every caller its own copy, rebuilt from the JSON the worker returned, so a test that edits its plan never
changes another's. Only the checkout's own program is cached: a test that plans a program it wrote calls
`sahab.engine.plan` itself."""

from __future__ import annotations

import json
import threading

from sahab.engine import Plan, plan

_documents: dict[tuple[str, bool], str] = {}
_locks: dict[tuple[str, bool], threading.Lock] = {}
_guard = threading.Lock()


def stack_plan(stack: str, *, preview: bool = False) -> Plan:
    """What `plan(None, stack, preview=preview)` returns, planned at most once per session (thread-safe: two
    threads planning two stacks run side by side; two asking for the same one wait for one plan)."""
    key = (stack, preview)
    with _guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        if key not in _documents:
            _documents[key] = json.dumps(plan(None, stack, preview=preview).to_json())
    return Plan.from_json(json.loads(_documents[key]))

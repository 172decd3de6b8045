"""Fixtures for the workload tests."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.workloads.workload_helpers import ROOT, sahab_env


@pytest.fixture
def run_sahab():
    """Run `python -m sahab ARGS` from this checkout; returns the CompletedProcess."""

    def run(*args: str, timeout: float = 150, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "sahab", *args], cwd=ROOT, env=sahab_env() | (env or {}), capture_output=True,
            text=True, timeout=timeout,
        )

    return run


@pytest.fixture(autouse=True)
def _builtin_sys_intern():
    """ansible-core (imported in-process by the on-prem rendering tests) replaces sys.intern with a callable object,
    which torch.compile's tracer refuses; the trainer runs here as it runs in its image, with the builtin."""
    patched = sys.intern
    original = getattr(type(patched), "unpatched_implementation", None)
    if original is not None:
        sys.intern = original
    yield
    sys.intern = patched

"""Fixtures for the workload tests."""

from __future__ import annotations

import subprocess
import sys

import pytest
from workload_helpers import ROOT, sahab_env


@pytest.fixture
def run_sahab():
    """Run `python -m sahab ARGS` from this checkout; returns the CompletedProcess."""

    def run(*args: str, timeout: float = 150, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "sahab", *args], cwd=ROOT, env=sahab_env() | (env or {}), capture_output=True,
            text=True, timeout=timeout,
        )

    return run

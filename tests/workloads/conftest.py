"""Helpers for the workload tests that run `sahab` as a user would: in a subprocess, from this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def sahab_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


@pytest.fixture
def run_sahab():
    """Run `python -m sahab ARGS` from this checkout; returns the CompletedProcess."""

    def run(*args: str, timeout: float = 150) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "sahab", *args], cwd=ROOT, env=sahab_env(), capture_output=True, text=True,
            timeout=timeout,
        )

    return run

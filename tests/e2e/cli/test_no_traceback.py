"""Every command, asked for help or given bad usage, answers without a traceback on stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sahab.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[3]


def sahab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sahab", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_and_bad_usage_never_print_a_traceback(command):
    helped = sahab(command, "--help")
    assert helped.returncode == 0 and "Traceback" not in helped.stderr
    bad = sahab(command, "--no-such-option")
    assert bad.returncode == 2
    assert bad.stderr.startswith("error:") and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("args", [("plan", "--stack", "nosuch"), ("check", "--stack", "nosuch"),
                                  ("check", "--program", "/nonexistent"), ("plan", "--format", "xml")])
def test_bad_stacks_and_programs_are_one_error_line(args):
    done = sahab(*args)
    assert done.returncode == 2
    assert done.stderr.startswith("error:") and done.stderr.count("\n") == 1, done.stderr

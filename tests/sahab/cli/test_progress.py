"""The progress line: drawn on a terminal's stderr while a stack plans, never on stdout, never in machine
output, absent when stderr is not a terminal or with --quiet."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def run_with_terminal_stderr(*args: str) -> tuple[int, str, str]:
    """Run `sahab ARGS` with stderr on a pseudo-terminal; (exit code, stdout, what the terminal showed)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "sahab", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=follower, text=True)
    os.close(follower)
    shown = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    out, _ = proc.communicate(timeout=600)
    reader.join(timeout=30)
    os.close(leader)
    return proc.returncode, out, shown.decode(errors="replace")


def test_a_terminal_sees_progress_and_stdout_stays_clean_json():
    code, out, shown = run_with_terminal_stderr("plan", "--stack", "smb", "--format", "json")
    assert code == 0, shown
    assert "planning smb:" in shown
    # Never a false count: a count shown is what the worker registered (smb plans dozens), else seconds.
    counts = [int(n) for n in re.findall(r"planning smb: (\d+) resources", shown)]
    assert all(n > 0 for n in counts), shown
    assert json.loads(out)["stack"] == "smb"  # nothing of the progress line in the JSON
    assert "\r" not in out and "resources\x1b" not in out


def test_quiet_draws_nothing_on_a_terminal():
    code, _, shown = run_with_terminal_stderr("plan", "--stack", "smb", "--format", "json", "--quiet")
    assert code == 0
    assert "planning" not in shown


def test_no_terminal_no_progress():
    done = subprocess.run([sys.executable, "-m", "sahab", "check", "--stack", "smb", "--format", "json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1)
    assert "checking" not in done.stderr and "\r" not in done.stderr
    json.loads(done.stdout)

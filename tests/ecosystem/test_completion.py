"""Shell completion, exercised in a real bash: commands, then each command's options."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def complete(script: str, line: str) -> list[str]:
    words = line.split(" ")
    probe = (f"{script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
             "_sahab; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    done = subprocess.run(["bash", "--norc", "--noprofile"], input=probe, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.fixture(scope="module")
def bash_script() -> str:
    if not shutil.which("bash"):
        pytest.skip("no bash on this machine")
    done = subprocess.run([sys.executable, "-m", "sahab", "completion", "bash"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    return done.stdout


def test_bash_completes_commands_and_their_options(bash_script):
    assert complete(bash_script, "sahab ch") == ["check"]
    assert set(complete(bash_script, "sahab check --")) >= {"--stack", "--program", "--format", "--report", "--quiet"}
    assert complete(bash_script, "sahab plan --st") == ["--stack"]


def test_fish_and_zsh_scripts_name_every_command():
    for shell in ("zsh", "fish"):
        out = subprocess.run([sys.executable, "-m", "sahab", "completion", shell], cwd=ROOT, capture_output=True,
                             text=True, timeout=120).stdout
        for command in ("plan", "check", "audit", "bench", "train"):
            assert command in out

"""Shell completion, exercised in a real bash: commands, then each command's options."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


# The scripts call `sahab` itself for stack names: the one installed beside this interpreter.
PATH = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))


def complete(script: str, line: str, cwd: Path = ROOT) -> list[str]:
    words = line.split(" ")
    probe = (f"{script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
             "_sahab; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    done = subprocess.run(["bash", "--norc", "--noprofile"], input=probe, capture_output=True, text=True, timeout=60,
                          cwd=cwd, env={**os.environ, "PATH": PATH})
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


def test_bash_completes_format_values_per_command(bash_script):
    assert complete(bash_script, "sahab check --format ") == ["text", "json", "sarif", "junit"]
    assert complete(bash_script, "sahab plan --format j") == ["json"]
    assert complete(bash_script, "sahab audit aws --format s") == ["sarif"]


def test_bash_completes_the_stacks_of_the_project_being_worked_on(bash_script, tmp_path):
    assert complete(bash_script, "sahab check --stack ") == ["burst", "dev", "prod", "smb"]
    assert complete(bash_script, "sahab plan -s p") == ["prod"]
    # Another project: its own stacks, found from the current folder up, or from --program on the line.
    other = tmp_path / "infra"
    (other / "config").mkdir(parents=True)
    (other / "Pulumi.yaml").write_text("name: infra\nruntime: python\nstackConfigDir: config\n")
    for stack in ("staging", "live"):
        (other / "config" / f"Pulumi.{stack}.yaml").write_text("config: {}\n")
    (other / "src").mkdir()
    assert complete(bash_script, "sahab check --stack ", cwd=other / "src") == ["live", "staging"]
    assert complete(bash_script, f"sahab check --program {other} --stack s", cwd=tmp_path) == ["staging"]
    assert complete(bash_script, "sahab check --stack ", cwd=tmp_path) == []  # no project: nothing, no error


def test_fish_completes_stacks_and_format_values():
    out = subprocess.run([sys.executable, "-m", "sahab", "completion", "fish"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120).stdout
    assert '-l format -x -a "text json sarif junit"' in out
    assert "-l stack -s s -x -a '(sahab completion --list-stacks)'" in out

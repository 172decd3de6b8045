"""A program in its own virtualenv runs with its own interpreter and SDK versions: a program written for
pulumi_aws 6 (`Eip(vpc=True)`, which pulumi_aws 7 refuses) plans and is judged, on another Python minor version
when this machine has one.

The virtualenv is built from the package index once and cached outside the repository (`$SAHAB_TEST_CACHE`,
default /var/cache/sahab-tests), keyed by its requirements and interpreter: the first run pays about a minute
for the download, later runs a few seconds for the two checks. Without the index the test is skipped, saying so."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from sahab.engine import plan
from sahab.engine.plan_types import UNKNOWN
from tests.workers import machine_cache

PROGRAM = Path(__file__).resolve().parent / "programs" / "aws6"
pytestmark = pytest.mark.slow


def _other_python() -> str:
    """A Python of another minor version than Sahab's, when one is installed; else Sahab's own base Python."""
    mine = f"{sys.version_info[0]}.{sys.version_info[1]}"
    candidates = [shutil.which(f"python3.{minor}") for minor in (12, 10, 13)]
    candidates += sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.1[023]*/bin/python3"))
    for found in filter(None, candidates):
        done = subprocess.run([found, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip() != mine:
            return found
    return getattr(sys, "_base_executable", sys.executable)


@pytest.fixture(scope="session")
def aws6_venv(tmp_path_factory) -> Path:
    python = _other_python()
    requirements = [f"pulumi=={version('pulumi')}", *(PROGRAM / "requirements.txt").read_text().split()]
    key = hashlib.sha256(json.dumps([python, requirements]).encode()).hexdigest()[:16]
    home = machine_cache() / "venvs" / key
    if (home / ".complete").is_file():
        return home
    shutil.rmtree(home, ignore_errors=True)
    probe = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d",
                            str(tmp_path_factory.mktemp("probe")), requirements[-1]],
                           capture_output=True, text=True, timeout=300, check=False)
    if probe.returncode != 0:
        pytest.skip(f"the package index is unreachable from here ({(probe.stderr.strip().splitlines() or ['?'])[-1]})")
    subprocess.run([python, "-m", "venv", str(home)], check=True, capture_output=True, timeout=300)
    subprocess.run([str(home / "bin" / "python"), "-m", "pip", "install", "-q", *requirements], check=True,
                   capture_output=True, timeout=1200)
    (home / ".complete").touch()
    return home


@pytest.fixture(scope="session")
def program(aws6_venv, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("aws6") / "aws6"
    shutil.copytree(PROGRAM, folder)
    (folder / "Pulumi.yaml").write_text(
        f"name: aws6\nruntime:\n  name: python\n  options:\n    virtualenv: {aws6_venv}\n")
    return folder


def test_the_program_runs_with_its_own_sdk_and_interpreter(program, aws6_venv):
    venv_python = subprocess.run([str(aws6_venv / "bin" / "python"), "-c",
                                  "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True, check=True).stdout.strip()
    preview = plan(program, "dev", preview=True)
    assert preview.notices == [] and preview.outputs["python"] == venv_python
    assert preview.outputs["public_ip"] == UNKNOWN
    provider = next(r for r in preview.resources if r.type == "pulumi:providers:aws")
    assert provider.name == "default_6_83_0"  # the program's pulumi_aws, not Sahab's 7
    update = plan(program, "dev")
    # update-run outputs typed from pulumi_aws 6's own declarations: an IP, a bucket ARN without a region
    assert update.outputs["public_ip"].startswith("203.0.113.")
    assert update.outputs["bucket_arn"].startswith("arn:aws:s3:::")


def test_the_program_is_judged(program):
    done = subprocess.run([sys.executable, "-m", "sahab", "check", "--program", str(program), "--format", "json"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stderr
    flagged = {v["name"] for v in json.loads(done.stdout)["violations"] if v["enforcement"] == "mandatory"}
    assert "data" in flagged  # an unencrypted bucket

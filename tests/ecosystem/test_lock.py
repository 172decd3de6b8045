"""The lock files: complete, hash-pinned, torch the CPU 2.13.0 build, stale locks refused with the fix named;
the program folder and the policy pack install from them."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lock = _load("lock")
ENTRY = re.compile(r"^([a-z0-9-]+)==(\S+) \\\n    --hash=sha256:[0-9a-f]{64}$", re.M)


def entries(path: Path) -> dict[str, str]:
    text = path.read_text()
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    found = dict(ENTRY.findall(text))
    assert len(body) == 2 * len(found), f"{path.name}: a line that is not `name==version` plus its hash"
    return found


def test_the_committed_locks_match_pyproject():
    assert lock.check() == 0


def test_torch_is_the_cpu_2_13_0_build_and_only_in_the_dev_lock():
    dev, runtime = entries(ROOT / "requirements-dev.lock"), entries(ROOT / "requirements.lock")
    assert dev["torch"] == "2.13.0+cpu"
    assert "torch" not in runtime
    assert not [name for name in dev if name.startswith("nvidia-")]  # no CUDA build's libraries


def test_the_runtime_lock_is_the_dev_lock_restricted():
    dev, runtime = entries(ROOT / "requirements-dev.lock"), entries(ROOT / "requirements.lock")
    assert {n: dev.get(n) for n in runtime} == runtime
    for needed in ("pulumi", "pulumi-aws", "pulumi-azure-native", "pulumi-kubernetes", "pulumi-policy", "pydantic",
                   "ansible-runner", "setuptools"):
        assert needed in runtime, needed
    for dev_only in ("pytest", "hypothesis", "moto", "ruff"):
        assert dev_only not in runtime, dev_only


def test_a_dependency_edit_makes_the_locks_stale_and_install_says_how_to_fix(tmp_path, monkeypatch, capsys):
    edited = tmp_path / "pyproject.toml"
    text = (ROOT / "pyproject.toml").read_text()
    edited.write_text(text.replace('"pyyaml>=6",', '"pyyaml>=6",\n  "tenacity>=8",', 1))
    assert lock.inputs_digest(edited) != lock.inputs_digest()
    monkeypatch.setattr(lock, "PYPROJECT", edited)
    assert lock.check() == 1
    err = capsys.readouterr().err
    assert err.startswith("error: requirements.lock, requirements-dev.lock, workloads/requirements.lock, "
                          "workloads/requirements-torch-cpu.lock out of date") and "make lock" in err


def test_tool_settings_do_not_make_the_locks_stale(tmp_path):
    edited = tmp_path / "pyproject.toml"
    edited.write_text((ROOT / "pyproject.toml").read_text().replace("line-length = 120", "line-length = 100"))
    assert lock.inputs_digest(edited) == lock.inputs_digest()


def test_make_install_checks_the_lock_and_installs_only_from_it():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("$(STAMP): pyproject.toml $(LOCKS)\n", 1)[1].split("\n\n", 1)[0]
    assert recipe.splitlines()[0].strip().endswith("tools/lock.py check")
    installs = [line for line in recipe.splitlines() if "pip install" in line]
    assert installs and all("--no-deps" in line for line in installs)
    assert "--require-hashes" in installs[0] and "-r requirements-dev.lock" in installs[0]


def test_pulumi_install_finds_the_requirements_in_the_program_folder():
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    assert project["runtime"]["options"] == {"toolchain": "pip", "virtualenv": ".venv"}
    requirements = ROOT / project["main"] / "requirements.txt"  # Pulumi's pip toolchain reads it there
    lines = [ln for ln in requirements.read_text().splitlines() if ln and not ln.startswith("#")]
    assert lines == ["-r ../requirements.lock"]
    # pip reads nested requirement files relative to the file naming them: the runtime lock at the root.
    assert (requirements.parent / "../requirements.lock").resolve() == ROOT / "requirements.lock"


def test_pulumi_install_would_install_the_locked_versions(tmp_path):
    """pip, run as Pulumi runs it (cwd the program folder), resolves stacks/requirements.txt to the lock."""
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                           "--report", str(tmp_path / "report.json"), "-r", "requirements.txt"],
                          cwd=ROOT / "stacks", capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    report = json.loads((tmp_path / "report.json").read_text())
    chosen = {lock._requirement(i["metadata"]["name"])[1]: i["metadata"]["version"] for i in report["install"]}
    assert chosen == entries(ROOT / "requirements.lock")


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("pack") / "sahab-policy-pack"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "policy_pack.py"), str(dest)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return dest


def test_the_published_pack_is_self_contained(pack):
    project = yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())
    assert project["runtime"] == {"name": "python", "options": {"toolchain": "pip", "virtualenv": "venv"}}
    assert (pack / "policies" / "rules" / "aws_s3.py").is_file() and (pack / "policies" / "waivers.yaml").is_file()
    pinned = entries(pack / "requirements.txt")
    assert pinned["pulumi-policy"] == entries(ROOT / "requirements.lock")["pulumi-policy"]
    assert "pyyaml" in pinned and not [n for n in pinned if n.startswith("pulumi-a") or n == "pulumi-kubernetes"]


def test_the_published_pack_serves_its_own_rules(pack, tmp_path):
    """Started as the Pulumi CLI starts it, the pack answers with a port and imports the rules from its folder."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONVERBOSE": "1"}
    log = tmp_path / "imports.log"  # a file, not a pipe: the verbose import log must never block the pack
    with log.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "__main__.py"], cwd=pack, env=env, stdout=subprocess.PIPE,
                                stderr=stderr, text=True)
        try:
            port = proc.stdout.readline().strip()
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    err = log.read_text()
    assert port.isdigit(), err[-2000:]
    assert f"{pack}/policies/pack.py" in err
    assert f"{ROOT}/policies/pack.py" not in err

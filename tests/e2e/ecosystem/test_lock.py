"""The lock files: complete, hash-pinned, torch the CPU 2.13.0 build, stale locks refused with the fix named;
the program folder and the policy pack install from them."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


lock = _load("lock")
LOCKS = (lock.DEV_LOCK, lock.RUNTIME_LOCK, lock.PACK_LOCK, lock.RELEASE_LOCK)


def entries(path: Path, machine: str | None = None) -> dict[str, str]:
    """name -> version of a lock's pins (each `name==version[ ; marker]` and its hashes); with `machine`
    ("linux-x86_64", ...) only those whose markers hold there, on CPython 3.11."""
    pins = lock.read_lock(path)
    body = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    assert len(body) == sum(1 + len(e.hashes) for e in pins), f"{path.name}: a line that is not a pin or its hash"
    return {e.name: e.version for e in pins if machine is None or e.marker is None or _holds(e.marker, machine)}


def _holds(marker: str, machine: str) -> bool:
    from packaging.markers import Marker

    env = {"python_version": "3.11", "python_full_version": "3.11.0", "implementation_name": "cpython",
           "platform_python_implementation": "CPython", "os_name": "posix", **lock.TARGETS[machine][1]}
    return Marker(marker).evaluate(env)


def test_the_committed_locks_match_pyproject():
    assert lock.check() == 0


def test_every_pin_carries_every_file_of_its_version():
    """A package with compiled wheels has one per platform and Python: one hash would fit one machine only."""
    hashes = {e.name: len(e.hashes) for e in lock.read_lock(lock.RUNTIME_LOCK) if e.marker is None}
    for compiled in ("pydantic-core", "grpcio", "pyyaml"):
        assert hashes[compiled] >= 10, compiled
    assert all(e.hashes for path in LOCKS for e in lock.read_lock(path))


def test_torch_is_the_cpu_2_13_0_build_wherever_it_installs():
    dev = lock.read_lock(lock.DEV_LOCK)
    torch = {e.marker: e for e in dev if e.name == "torch"}
    linux = torch["sys_platform == 'linux'"]
    assert linux.version == "2.13.0+cpu"
    # Exactly the recorded CPU wheels (the one on this machine's disk among them), never PyPI's CUDA builds.
    recorded = json.loads(lock.TORCH_WHEELS.read_text())["wheels"]
    assert set(linux.hashes) == {w["sha256"] for w in recorded.values()}
    assert {n.split("-")[2] for n in recorded} == {"cp311", "cp312", "cp313"}
    assert {n.rsplit("-", 1)[1] for n in recorded} == {"manylinux_2_28_x86_64.whl", "manylinux_2_28_aarch64.whl"}
    (elsewhere,) = [e for m, e in torch.items() if m != "sys_platform == 'linux'"]
    assert elsewhere.version == "2.13.0" and not set(elsewhere.hashes) & set(linux.hashes)
    for machine in ("macos-arm64", "windows-x86_64"):
        assert _holds(elsewhere.marker, machine)
    for machine in ("linux-x86_64", "linux-aarch64", "macos-x86_64"):  # no PyPI torch there: CUDA, or none at all
        assert not _holds(elsewhere.marker, machine)
    assert not [e.name for e in dev if e.name.startswith(("nvidia-", "cuda-")) or e.name == "triton"]
    for path in LOCKS[1:]:
        assert "torch" not in entries(path)


def test_the_other_locks_are_cut_from_the_dev_resolution():
    dev = {(e.name, e.version) for e in lock.read_lock(lock.DEV_LOCK)}
    for path in LOCKS[1:]:
        assert {(e.name, e.version) for e in lock.read_lock(path)} <= dev, path.name
    runtime = entries(lock.RUNTIME_LOCK)
    for needed in ("pulumi", "pulumi-aws", "pulumi-azure-native", "pulumi-kubernetes", "pulumi-policy", "pydantic",
                   "ansible-runner", "setuptools"):
        assert needed in runtime, needed
    for dev_only in ("pytest", "hypothesis", "moto", "ruff", "uv", "twine"):
        assert dev_only not in runtime, dev_only
    pack = entries(lock.PACK_LOCK)
    assert {"pulumi-policy", "pyyaml", "pulumi"} <= set(pack)
    assert not [n for n in pack if n.startswith("pulumi-a") or n in ("pulumi-kubernetes", "ansible-core", "boto3")]
    assert {"build", "twine", "setuptools"} <= set(entries(lock.RELEASE_LOCK))


def test_a_package_without_a_wheel_for_a_machine_keeps_one_that_has_it():
    """cryptography 49+ has no macOS x86_64 wheel: Intel Macs keep 48, every other machine the newest."""
    assert entries(lock.RUNTIME_LOCK, "macos-x86_64")["cryptography"].startswith("48.")
    assert int(entries(lock.RUNTIME_LOCK, "macos-arm64")["cryptography"].split(".")[0]) >= 49


@pytest.fixture(scope="module")
def verified() -> dict:
    """pip, as a Windows machine and an Apple-silicon Mac would run it, resolves the pack's and the runtime's
    locks with every hash checked (a hash missing for one of their files fails it), side by side."""
    pairs = [(lock.PACK_LOCK, "windows-x86_64", "3.13"), (lock.RUNTIME_LOCK, "macos-arm64", "3.12")]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(pairs)) as pool:
        done = dict(zip(pairs, pool.map(lambda pair: lock.verify_one(*pair), pairs), strict=True))
    if all(lock._NETWORK.search(d.stderr) for d in done.values()):
        pytest.skip("the package index cannot be reached from here: the locks' hashes are checked where it can")
    return done


@pytest.mark.parametrize("pair", [("requirements-pack.lock", "windows-x86_64", "3.13"),
                                  ("requirements.lock", "macos-arm64", "3.12")])
def test_the_locks_resolve_on_other_machines_with_hashes_required(verified, pair):
    name, machine, python = pair
    done = verified[(lock.ROOT / name, machine, python)]
    assert done.returncode == 0, done.stderr[-3000:]


def test_verification_fails_on_a_hash_the_lock_lacks(tmp_path):
    """The same check refuses a lock whose hashes miss the file that machine would install."""
    broken = tmp_path / "requirements-pack.lock"
    text = lock.PACK_LOCK.read_text()
    pyyaml = next(e for e in lock.read_lock(lock.PACK_LOCK) if e.name == "pyyaml")
    for digest in pyyaml.hashes[1:]:
        text = text.replace(f" \\\n    --hash=sha256:{digest}", "")
    broken.write_text(text)
    done = lock.verify_one(broken, "windows-x86_64", "3.13")
    if lock._NETWORK.search(done.stderr):
        pytest.skip("the package index cannot be reached from here")
    assert done.returncode != 0 and "pyyaml" in done.stderr.lower()


def test_a_dependency_edit_makes_the_locks_stale_and_install_says_how_to_fix(tmp_path, monkeypatch, capsys):
    edited = tmp_path / "pyproject.toml"
    text = (ROOT / "pyproject.toml").read_text()
    edited.write_text(text.replace('"pyyaml>=6",', '"pyyaml>=6",\n  "tenacity>=8",', 1))
    assert lock.inputs_digest(edited) != lock.inputs_digest()
    monkeypatch.setattr(lock, "PYPROJECT", edited)
    assert lock.check() == 1
    err = capsys.readouterr().err
    assert err.startswith("error: requirements-dev.lock, requirements.lock, requirements-pack.lock, "
                          "requirements-release.lock out of date") and "make lock" in err


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
    report = json.loads((tmp_path / "report.json").read_text())
    chosen = {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"] for i in report["install"]}
    assert chosen == entries(ROOT / "requirements.lock", "linux-x86_64")


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("pack") / "sahab-policy-pack"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "policy_pack.py"), str(dest)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return dest


def test_the_pack_builds_with_the_standard_library_alone(tmp_path):
    """`make policy-pack` needs no .venv: -S keeps every site-packages (yaml, packaging, pip) out of reach."""
    dest = tmp_path / "dist" / "policy-pack"
    done = subprocess.run([sys.executable, "-I", "-S", str(ROOT / "tools" / "policy_pack.py"), str(dest)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.rglob("*") if p.parent == tmp_path) == ["dist"]
    assert sorted(p.name for p in dest.iterdir()) == ["PulumiPolicy.yaml", "__main__.py", "policies",
                                                      "requirements.txt"]
    assert (dest / "requirements.txt").read_text() == lock.PACK_LOCK.read_text()


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

"""Shared fixtures. The project root is on sys.path (pytest `pythonpath`), so tests import this checkout.

`wheel_venv` is Sahab as `pip install sahab` gives it: a virtualenv holding exactly requirements.lock (kept between
runs under pytest's cache, keyed by the lock's contents, so only the first run pays for unpacking the provider
SDKs) and the wheel built from this checkout, installed afresh every session. No torch: `sahab check` needs none."""

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STACKS = ("dev", "prod", "burst", "smb")
LOCK = ROOT / "requirements.lock"
INSTALL_BUDGET = 900  # seconds for unpacking the locked SDKs into a new virtualenv, on a busy machine


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


@pytest.fixture(scope="session", autouse=True)
def _checkpoint_key_of_this_session(tmp_path_factory):
    """Training runs (in process and in torchrun workers) sign checkpoints with one key per test session, kept in
    the session's temporary directory, not the user's own (workloads/train/integrity.py)."""
    import os

    if "SAHAB_CHECKPOINT_KEY" not in os.environ and "SAHAB_CHECKPOINT_KEY_FILE" not in os.environ:
        os.environ["SAHAB_CHECKPOINT_KEY_FILE"] = str(tmp_path_factory.mktemp("checkpoint-key") / "key")


def quiet_env() -> dict[str, str]:
    # Run from outside the checkout: nothing of it may be importable except through the wheel.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONWARNINGS"] = "ignore"
    return env


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(ROOT)], check=True, env=quiet_env(), capture_output=True, timeout=300)
    (built,) = out.glob("sahab-*.whl")
    return built


@pytest.fixture(scope="session")
def wheel_venv(request, wheel, tmp_path_factory) -> Path:
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()[:16]
    cache = Path(request.config.cache.mkdir("wheel-venv"))
    home = cache / digest
    python = home / "bin" / "python"
    if not (home / ".complete").is_file():
        shutil.rmtree(home, ignore_errors=True)
        for stale in cache.iterdir():  # venvs of older locks
            shutil.rmtree(stale, ignore_errors=True)
        venv.EnvBuilder(with_pip=True).create(home)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--require-hashes", "--no-deps", "-r", str(LOCK)],
                       check=True, env=quiet_env(), capture_output=True, timeout=INSTALL_BUDGET)
        (home / ".complete").touch()
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", str(wheel)],
                   check=True, env=quiet_env(), capture_output=True, timeout=300)
    return home

"""Shared fixtures. The project root is on sys.path (pytest `pythonpath`), so tests import this checkout."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STACKS = ("dev", "prod", "burst", "smb")


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

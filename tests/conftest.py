"""Shared fixtures. The project root is on sys.path (pytest `pythonpath`), so tests import this checkout."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STACKS = ("dev", "prod", "burst", "smb")


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT

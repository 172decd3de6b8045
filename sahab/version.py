"""Sahab's one version: pyproject.toml's `[project] version`, as the CLI, the reports and the pack state it.

Installed, the distribution's metadata carries it; in a plain checkout (no install, `python -m sahab` from the
repository) it is read from pyproject.toml beside the package. The policy pack cannot import Sahab (it is
published alone), so policies/PulumiPolicy.yaml repeats the number and a test keeps the two equal."""

from __future__ import annotations

import functools
from pathlib import Path

DISTRIBUTION = "sahab"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


@functools.cache
def version() -> str:
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return pyproject_version(PYPROJECT)


def pyproject_version(path: Path) -> str:
    import tomllib

    with open(path, "rb") as f:
        return str(tomllib.load(f)["project"]["version"])

"""Sahab's one version: pyproject.toml's `[project] version`, as the CLI, the reports, the pack and the workload's
own JSON documents (`"sahabVersion"`) state it.

It lives here because the workload image carries no `sahab` package; `sahab.version` re-exports it, so there is one
lookup. Read from pyproject.toml beside the package: the repository's, or the copy the image's Dockerfiles put
beside `workloads/` (/opt/sahab/pyproject.toml); else, installed without it, from the distribution's metadata."""

from __future__ import annotations

import functools
from pathlib import Path

DISTRIBUTION = "sahab"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


@functools.cache
def version() -> str:
    if PYPROJECT.is_file():
        return pyproject_version(PYPROJECT)
    from importlib import metadata

    return metadata.version(DISTRIBUTION)


def pyproject_version(path: Path) -> str:
    import tomllib

    with open(path, "rb") as f:
        return str(tomllib.load(f)["project"]["version"])

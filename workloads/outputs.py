"""Output paths checked before any work starts: a run should not measure or train for minutes and then fail
to write what it was asked for.

The checks write for real (root passes every permission test, and a read-only mount fails only on write), and
remove what they created apart from parent directories, which the run would create anyway.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from .errors import UsageError


def check_writable(option: str, path: Path | None, *, make_folders: bool = True) -> None:
    """`path` can be created or overwritten as a file; else a UsageError naming `option`. With `make_folders`
    false (the writer does not create them, e.g. `sahab check --output`), a missing folder is refused too.
    Both CLIs use this one check (`sahab` through sahab/commands)."""
    if path is None:
        return
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory; give a file path")
    if not make_folders and not path.parent.is_dir():
        raise UsageError(f"{option} {path}: no folder {path.parent}")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a"):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot be written ({exc.strerror})") from exc
    finally:
        if not existed:
            path.unlink(missing_ok=True)


def check_writable_dir(option: str, directory: Path) -> None:
    """`directory` exists (or can be created) and takes new files; else a UsageError naming `option`."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{option} {directory}: is a file, not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".sahab-write-check-"):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {directory}: cannot be written ({exc.strerror})") from exc

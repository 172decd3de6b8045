"""Output files are checked before any work: a report that cannot be written is a usage error up front."""

from __future__ import annotations

import os
from pathlib import Path

from sahab.errors import UsageError


def ensure_writable(path: str | Path, option: str) -> None:
    """Exit 2 now, naming the option, when `path` cannot be written (a folder, no such folder, no permission)."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{option} {path}: is a folder; give a file name")
    if target.exists():
        if not os.access(target, os.W_OK):
            raise UsageError(f"{option} {path}: not writable")
        return
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: cannot create a file in {folder}")

"""Bytecode for a new virtualenv from the one running the tests, for the files the two hold byte for byte.

pip compiles every file it installs (the provider SDKs: over 13,000 files, about a minute of CPU). A file whose
RECORD hash equals this environment's copy (the same wheel of the same version) compiles to the same bytecode, so
the compiled file is copied instead, and the source given the donor's mtime so Python accepts it. The engine runs
programs with PYTHONDONTWRITEBYTECODE, so a virtualenv must leave install time compiled: afterwards
`compileall` compiles whatever had no twin, as pip would have."""

from __future__ import annotations

import csv
import os
import shutil
import sys
from pathlib import Path


def _record(dist_info: Path) -> dict[str, str]:
    """RECORD: path -> hash, for the .py files of one installed distribution."""
    with (dist_info / "RECORD").open(newline="") as handle:
        return {row[0]: row[1] for row in csv.reader(handle) if row and row[0].endswith(".py") and row[1]}


def reuse_bytecode(site: Path, donor: Path) -> int:
    """Copy `donor`'s bytecode of each .py file under `site` whose RECORD hash matches; how many got bytecode."""
    tag = sys.implementation.cache_tag
    given = 0
    for dist_info in site.glob("*.dist-info"):
        theirs = donor / dist_info.name
        if not (theirs / "RECORD").is_file():
            continue
        for path, _ in _record(dist_info).items() & _record(theirs).items():
            source, donor_source = site / path, donor / path
            cached = donor_source.parent / "__pycache__" / f"{donor_source.stem}.{tag}.pyc"
            if not cached.is_file() or not source.is_file():
                continue
            target = source.parent / "__pycache__" / cached.name
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(cached, target)
            stat = donor_source.stat()
            os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            given += 1
    return given

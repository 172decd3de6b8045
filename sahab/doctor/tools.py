"""The deploying machine's tools: the Pulumi CLI that runs `pulumi up`, and the Python that runs the program."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator

from sahab.doctor import FAIL, OK, Check, DoctorContext

AREA = "tools"
MIN_PYTHON = (3, 11)  # pyproject's requires-python


def _version(text: str) -> tuple[int, ...] | None:
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(p) for p in found.groups()) if found else None


def _sdk_version() -> tuple[int, ...]:
    """The CLI must be at least the Pulumi SDK the program runs with: a newer SDK may ask the engine for
    what an older CLI does not know."""
    from importlib.metadata import version

    return _version(version("pulumi")) or (3, 0, 0)


def checks(ctx: DoctorContext) -> Iterator[Check]:
    pulumi = shutil.which("pulumi")
    if pulumi is None:
        yield Check(AREA, "pulumi CLI", FAIL, "not on PATH",
                    "install it: https://www.pulumi.com/docs/iac/download-install/")
    else:
        try:
            out = subprocess.run([pulumi, "version"], capture_output=True, text=True, timeout=ctx.timeout)
            found = _version(out.stdout)
        except (OSError, subprocess.TimeoutExpired):
            found = None
        minimum = _sdk_version()
        wanted = ".".join(map(str, minimum))
        if found is None:
            yield Check(AREA, "pulumi CLI", FAIL, f"{pulumi} did not print a version", f"reinstall it (>= {wanted})")
        elif found < minimum:
            yield Check(AREA, "pulumi CLI", FAIL, f"{'.'.join(map(str, found))} at {pulumi}",
                        f"upgrade to >= {wanted} (the pulumi SDK installed here)")
        else:
            yield Check(AREA, "pulumi CLI", OK, f"{'.'.join(map(str, found))} at {pulumi}")
    here = sys.version_info[:2]
    status = OK if here >= MIN_PYTHON else FAIL
    yield Check(AREA, "python", status, f"{sys.version.split()[0]} at {sys.executable}",
                f"use Python >= {'.'.join(map(str, MIN_PYTHON))}" if status == FAIL else "")

"""Where a bundle's verdicts came from: the plan's hash, the pack and its inputs, the commit, the tools.

Nothing here depends on the moment except `generated_at`, which honours SOURCE_DATE_EPOCH (the reproducible-builds
convention), so two runs over an unchanged stack differ only in the time they state and sign.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from sahab.engine import Plan
from sahab.errors import UsageError

# Provider packages are published as pulumi-<package> (pulumi-aws, pulumi-azure-native, pulumi-kubernetes).
ENGINE_PACKAGES = ("pulumi", "pulumi-python")  # the engine's own provider types, not plugins


# The last second a timestamp of the bundle (and Python's datetime) can hold: 9999-12-31T23:59:59Z.
LAST_EPOCH = 253402300799


def generated_at() -> dt.datetime:
    """The time the bundle records: SOURCE_DATE_EPOCH when set (the reproducible-builds spec: ASCII digits, whole
    seconds since 1970-01-01 00:00:00 UTC, so 0 is that very second; empty counts as unset), else now."""
    raw = os.environ.get("SOURCE_DATE_EPOCH", "")
    if not raw:
        return dt.datetime.now(dt.UTC).replace(microsecond=0)
    # int() alone would take " 5", "+5", "1_000" and Arabic-Indic digits
    if not (raw.isascii() and raw.isdigit() and int(raw) <= LAST_EPOCH):
        raise UsageError(f"SOURCE_DATE_EPOCH={raw!r}: not allowed; allowed: whole seconds since 1970-01-01 00:00:00 "
                         f"UTC as `date +%s` prints them, from 0 to {LAST_EPOCH} (9999-12-31T23:59:59Z)")
    return dt.datetime.fromtimestamp(int(raw), dt.UTC)


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def plan_sha256(plan: Plan) -> str:
    """The hash of what the plan says would be built: project, stack, config (secrets redacted) and resources."""
    doc = {"project": plan.project, "stack": plan.stack, "config": plan.config,
           "resources": [r.contract() for r in plan.resources]}
    return hashlib.sha256(canonical(doc)).hexdigest()


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git_state(folder: Path) -> dict[str, Any] | None:
    """The commit the program folder is at and whether its work tree differs from it; None outside git."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if not commit:
        return None
    status = git("status", "--porcelain", "--untracked-files=no", "--", ".")
    return {"commit": commit, "dirty": bool(status)}


def provider_packages(plan: Plan) -> list[str]:
    """The provider packages the plan uses (`pulumi:providers:aws` -> aws)."""
    found = {r.type.split(":", 2)[2] for r in plan.resources if r.type.startswith("pulumi:providers:")}
    return sorted(found - set(ENGINE_PACKAGES))


def tool_versions(plan: Plan, interpreter: str) -> dict[str, Any]:
    """Sahab and the policy SDK as this process has them; the Pulumi SDK and the providers as the program's own
    interpreter has them (it is what ran the program)."""
    from importlib import metadata

    from sahab.version import version

    def here(dist: str) -> str | None:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    wanted = ["pulumi", *(f"pulumi-{p}" for p in provider_packages(plan))]
    program = _versions_in(interpreter, wanted)
    return {"sahab": version(), "python": ".".join(map(str, sys.version_info[:3])),
            "pulumi-policy": here("pulumi-policy"), "pulumi": program.get("pulumi"),
            "providers": {dist.removeprefix("pulumi-"): program.get(dist) for dist in wanted[1:]}}


def _versions_in(interpreter: str, dists: list[str]) -> dict[str, str | None]:
    """Distribution versions as another interpreter sees them; -I and a neutral folder keep the program's own
    files out of its path."""
    script = ("import json, sys\nfrom importlib import metadata\nout = {}\nfor d in sys.argv[1:]:\n"
              "    try:\n        out[d] = metadata.version(d)\n    except metadata.PackageNotFoundError:\n"
              "        out[d] = None\nprint(json.dumps(out))\n")
    try:
        done = subprocess.run([interpreter, "-I", "-c", script, *dists], capture_output=True, text=True,
                              timeout=60, cwd="/")
        return json.loads(done.stdout) if done.returncode == 0 else {}
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}


def program_interpreter(program_dir: Path) -> str:
    """The Python that runs the program, as `pulumi preview` picks it (the engine's own choice: the virtualenv of
    the program's toolchain, else Sahab's)."""
    from sahab.engine.toolchain import resolve
    from sahab.project import find_project

    return resolve(find_project(program_dir)).python

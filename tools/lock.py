"""The lock files: every dependency of Sahab pinned to one version and one file hash.

    python tools/lock.py compile   # `make lock`: resolve pyproject.toml with pip, write both lock files
    python tools/lock.py check     # `make install` runs this first: fail if pyproject.toml changed since

`requirements.lock` holds what the program, the policy pack and `sahab check` need (the runtime dependencies);
`requirements-dev.lock` adds the test tools and the workload (torch, the CPU build on this machine's disk).
The workload image installs from two more, cut from the dev lock (same versions, same hashes) so that its pip
runs `--require-hashes`: `workloads/requirements.lock` (what `python -m workloads` imports beyond torch, and
torch's own dependencies) and `workloads/requirements-torch-cpu.lock` (torch, for the CPU image; the CUDA image's
base brings its own build). `python tools/lock.py image` re-cuts them from the installed .venv.
Both come from one pip resolution, so a package shared by the two has one version. pip resolves (not uv:
only pip reads this machine's configured indexes and wheel folders, where the CPU torch lies), and torch is
pinned to TORCH below, so no resolver ever picks a newer torch and its multi-GB CUDA build.

The locks are for CPython 3.11 on Linux x86_64 (this machine, CI and the GitHub workflow's runner). Each lock's
first lines record a digest of the dependency tables of pyproject.toml it was made from; `check` compares.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
RUNTIME_LOCK = ROOT / "requirements.lock"
DEV_LOCK = ROOT / "requirements-dev.lock"
IMAGE_LOCK = ROOT / "workloads" / "requirements.lock"
IMAGE_TORCH_LOCK = ROOT / "workloads" / "requirements-torch-cpu.lock"
# What the workload's commands import beyond the standard library (workloads/: rich for the status line, boto3
# and azure-* for s3:// and az:// checkpoints, jinja2 and matplotlib for the fleet report, numpy and torch).
IMAGE_PACKAGES = ("rich", "jinja2", "matplotlib", "numpy", "boto3", "azure-storage-blob", "azure-identity")
EXTRAS = ("dev", "workload")
TORCH = "torch==2.13.0"  # the CPU wheel on disk; a newer torch resolves to a CUDA build
# The build backend, locked too: `make install` builds the editable install without build isolation.
BUILD = "setuptools>=68"
DIGEST_PREFIX = "# inputs: sha256:"


def inputs_digest(pyproject: Path | None = None) -> str:
    """What the locks depend on: the dependency tables of pyproject.toml and the pins this script adds."""
    doc = tomllib.loads((pyproject or PYPROJECT).read_text())
    project = doc.get("project", {})
    inputs = {
        "requires-python": project.get("requires-python"),
        "dependencies": project.get("dependencies", []),
        "optional-dependencies": project.get("optional-dependencies", {}),
        "build-system": doc.get("build-system", {}).get("requires", []),
        "pins": [TORCH, BUILD],
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def recorded_digest(lock: Path) -> str | None:
    if not lock.is_file():
        return None
    for line in lock.read_text().splitlines():
        if line.startswith(DIGEST_PREFIX):
            return line.removeprefix(DIGEST_PREFIX).strip()
    return None


def check() -> int:
    want = inputs_digest()
    stale = [str(lock.relative_to(ROOT)) for lock in (RUNTIME_LOCK, DEV_LOCK, IMAGE_LOCK, IMAGE_TORCH_LOCK)
             if recorded_digest(lock) != want]
    if stale:
        print(f"error: {', '.join(stale)} out of date with pyproject.toml's dependencies: run `make lock` "
              "and commit the result", file=sys.stderr)
        return 1
    return 0


def resolve(python: str) -> dict:
    """pip's installation report for the whole project: what `pip install -e .[dev,workload]` would install."""
    command = [python, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--report", "-",
               "-e", f".[{','.join(EXTRAS)}]", TORCH, BUILD]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if "is ignored: it is neither" not in line]
        raise SystemExit("error: pip could not resolve the dependencies:\n" + "\n".join(errors[-20:]))
    return json.loads(done.stdout)


def _requirement(text: str):
    try:
        from packaging.requirements import Requirement
        from packaging.utils import canonicalize_name
    except ImportError:  # pip's own copy
        from pip._vendor.packaging.requirements import Requirement
        from pip._vendor.packaging.utils import canonicalize_name
    req = Requirement(text)
    return req, canonicalize_name(req.name)


def closure(roots: list[str], requires) -> set[str]:
    """`roots` and everything they depend on (markers evaluated here); `requires(name)` gives a package's
    requirement strings, None when it is not in the resolution."""
    needed: set[str] = set()
    todo: list[tuple[str, str]] = [(_requirement(r)[1], "") for r in roots]
    seen: set[tuple[str, str]] = set()
    while todo:
        name, extra = todo.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        texts = requires(name)
        if texts is None:
            continue
        needed.add(name)
        for text in texts:
            req, dep = _requirement(text)
            if req.marker is not None and not req.marker.evaluate({"extra": extra}):
                continue
            todo.append((dep, ""))
            todo.extend((dep, e) for e in req.extras)
    return needed


def _report_requires(report: dict):
    items = {_requirement(i["metadata"]["name"])[1]: i for i in report["install"]}
    return lambda name: (items[name]["metadata"].get("requires_dist") or []) if name in items else None


def runtime_closure(report: dict) -> set[str]:
    """The names the project needs without extras: its dependencies and theirs, markers evaluated here."""
    return closure(["sahab"], _report_requires(report))


def image_closures(requires) -> tuple[set[str], set[str]]:
    """(the image's packages without torch, and torch's own dependencies with them; torch alone)."""
    torch_deps = closure(["torch"], requires) - {"torch"}
    return closure(list(IMAGE_PACKAGES), requires) - {"torch"} | torch_deps, {"torch"}


def write_image_locks(dev_lock_text: str, requires, digest: str) -> None:
    """Cut the image's locks from the dev lock: the same `name==version --hash` entries, nothing resolved anew."""
    text = dev_lock_text.replace(" \\\n    --hash", " --hash")
    lines = {_requirement(line.split("==", 1)[0])[1]: line.replace(" --hash", " \\\n    --hash")
             for line in text.splitlines() if line and not line.startswith("#")}
    common, torch = image_closures(requires)
    missing = sorted((common | torch) - set(lines))
    if missing:
        raise SystemExit(f"error: the dev lock has no {', '.join(missing)}; run `make lock`")
    note = "Install: pip install --require-hashes --no-deps -r {} (workloads/Dockerfile*)"
    write(IMAGE_LOCK, "What the workload image installs beyond its base: `python -m workloads`'s imports and "
          "torch's dependencies.", [lines[n] for n in sorted(common)], digest, note.format(IMAGE_LOCK.name))
    write(IMAGE_TORCH_LOCK, "torch for the CPU workload image (download.pytorch.org/whl/cpu); the CUDA image's base "
          "has its own.", [lines[n] for n in sorted(torch)], digest, note.format(IMAGE_TORCH_LOCK.name))


def _installed_requires(name: str):
    """A package's requirement strings from what .venv holds (installed from the dev lock by `make install`)."""
    from importlib import metadata

    try:
        return metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        return None


def lock_lines(report: dict, names: set[str] | None) -> list[str]:
    lines = []
    for item in sorted(report["install"], key=lambda i: i["metadata"]["name"].lower()):
        meta = item["metadata"]
        _, name = _requirement(meta["name"])
        if name == "sahab" or (names is not None and name not in names):
            continue
        hashes = (item.get("download_info", {}).get("archive_info") or {}).get("hashes") or {}
        if "sha256" not in hashes:
            raise SystemExit(f"error: pip reported no sha256 for {name} {meta['version']}; cannot lock it")
        lines.append(f"{name}=={meta['version']} \\\n    --hash=sha256:{hashes['sha256']}")
    return lines


def write(lock: Path, title: str, lines: list[str], digest: str, install: str | None = None) -> None:
    header = [
        f"# {title}",
        "# Generated by `make lock` (tools/lock.py) from pyproject.toml; do not edit by hand.",
        "# CPython 3.11, Linux x86_64. "
        + (install or f"Install: pip install --require-hashes --no-deps -r {lock.name}"),
        f"{DIGEST_PREFIX}{digest}",
    ]
    lock.write_text("\n".join(header + lines) + "\n")


def compile_locks(python: str) -> int:
    report = resolve(python)
    digest = inputs_digest()
    runtime = runtime_closure(report) | {"setuptools"}
    write(RUNTIME_LOCK, "Sahab's runtime dependencies (the program, the policy pack, `sahab check`).",
          lock_lines(report, runtime), digest)
    write(DEV_LOCK, "Everything `make install` puts into .venv: runtime, test tools and the workload (CPU torch).",
          lock_lines(report, None), digest)
    write_image_locks(DEV_LOCK.read_text(), _report_requires(report), digest)
    print(f"{RUNTIME_LOCK.name}: {len(runtime) - 1} packages; {DEV_LOCK.name}: {len(report['install']) - 1} packages")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["check"]:
        return check()
    if argv[:1] == ["compile"]:
        return compile_locks(argv[1] if len(argv) > 1 else sys.executable)
    if argv[:1] == ["image"]:
        write_image_locks(DEV_LOCK.read_text(), _installed_requires, recorded_digest(DEV_LOCK) or "")
        return 0
    print("usage: tools/lock.py compile [PYTHON] | image | check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

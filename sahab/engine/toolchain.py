"""Which interpreter runs a program, and with what environment: as the Pulumi CLI's Python language host picks it.

pulumi/pulumi sdk/python/toolchain (toolchain.go `ResolveToolchain`, pip.go, poetry.go, uv.go):
- the `toolchain` runtime option, else auto-detection from the program's folder upward: a `uv.lock` means uv, a
  `poetry.lock` means poetry, else pip;
- pip: the `virtualenv` option, relative to the project folder;
- poetry: `poetry env info --path`, run in the program's folder (its in-project `.venv` when poetry is absent);
- uv: the `virtualenv` option (relative to the project folder), else `$UV_PROJECT_ENVIRONMENT` or `.venv` beside
  the nearest `uv.lock`, else beside the nearest `pyproject.toml`, else in the program's folder. The CLI runs
  `uv sync` first; offline, Sahab uses the virtualenv as it is.
The interpreter runs with the virtualenv activated (`ActivateVirtualEnv`: its bin first on PATH, VIRTUAL_ENV
set, PYTHONHOME removed).

A program without a virtualenv, or whose virtualenv is not there, runs on Sahab's own interpreter, with a notice
saying so, and without Sahab's own packages in its view. `isolated` (what CI runs for unreviewed code) always
runs Sahab's own interpreter, with `-I`: the virtualenv a pull request names is never executed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from sahab.project import Project, program_virtualenv

EXEC = Path(__file__).resolve().parent / "langhost" / "sahab-language-python-exec"
# Where Sahab's own top-level packages are installed (this checkout, or site-packages): hidden from a program
# that runs on Sahab's interpreter (the executor reads it as SAHAB_HIDDEN_ROOT).
SAHAB_ROOT = EXEC.parents[3]


@dataclass(frozen=True)
class Interpreter:
    python: str
    flags: tuple[str, ...]  # interpreter options before the executor's path (`-I` when isolated)
    env: dict[str, str]
    site_packages: tuple[Path, ...]  # where its provider SDKs are installed (their declared types are read there)
    notice: str | None = None  # said once to the user: why this interpreter


def resolve(project: Project, *, isolated: bool = False) -> Interpreter:
    """The interpreter and environment `pulumi preview` would run the program with."""
    if isolated:
        return _sahab(None, flags=("-I",))
    toolchain = project.toolchain or _detect(project.main_dir)
    venv, why_not = _virtualenv(project, toolchain)
    if venv is None:
        return _sahab(why_not)
    python = venv / "bin" / "python"
    return Interpreter(str(python), (), _activated(venv), _venv_site_packages(venv))


def sahab_site_packages() -> tuple[Path, ...]:
    """Where Sahab's own interpreter has its packages."""
    paths = [Path(p) for p in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])]
    return tuple(dict.fromkeys(paths))


def _sahab(notice: str | None, flags: tuple[str, ...] = ()) -> Interpreter:
    env = {**os.environ, "SAHAB_HIDDEN_ROOT": str(SAHAB_ROOT)}
    return Interpreter(sys.executable, flags, env, sahab_site_packages(), notice)


def _detect(folder: Path) -> str:
    if _search_up(folder, "uv.lock"):
        return "uv"
    if _search_up(folder, "poetry.lock"):
        return "poetry"
    return "pip"


def _virtualenv(project: Project, toolchain: str) -> tuple[Path | None, str]:
    """The program's virtualenv, or None and the notice that says why Sahab's interpreter runs it instead."""
    here = f"planned with {sys.executable}"
    if toolchain == "poetry":
        venv = _poetry_env(project.main_dir)
        if venv is None:
            return None, (f"Pulumi.yaml names the poetry toolchain, but no poetry virtualenv was found for "
                          f"{project.main_dir}; {here} (run `poetry install` to create it)")
    elif toolchain == "uv":
        venv = _uv_env(project)
    else:
        venv = program_virtualenv(project)
        if venv is None:
            return None, f"Pulumi.yaml names no virtualenv for the program; {here}"
    if not (venv / "bin" / "python").exists():
        install = {"uv": "uv sync", "poetry": "poetry install"}.get(toolchain, "pulumi install")
        return None, f"Pulumi.yaml names the virtualenv {venv}, which does not exist; {here} (run `{install}` to " \
                     f"create it)"
    return venv, ""


def _poetry_env(folder: Path) -> Path | None:
    poetry = shutil.which("poetry")
    if poetry:
        try:
            done = subprocess.run([poetry, "env", "info", "--path"], cwd=folder, capture_output=True, text=True,
                                  timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            done = None
        if done is not None and done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip())
    found = _search_up(folder, "pyproject.toml")
    in_project = (found or folder) / ".venv"
    return in_project if in_project.is_dir() else None


def _uv_env(project: Project) -> Path:
    if project.virtualenv:
        return (project.root / project.virtualenv).resolve()
    base = _search_up(project.main_dir, "uv.lock") or _search_up(project.main_dir, "pyproject.toml") \
        or project.main_dir
    configured = os.environ.get("UV_PROJECT_ENVIRONMENT")
    return (base / configured).resolve() if configured else base / ".venv"


def _search_up(folder: Path, name: str) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / name).exists():
            return candidate
    return None


def _activated(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHOME", "VIRTUAL_ENV", "SAHAB_HIDDEN_ROOT")}
    env["PATH"] = os.pathsep.join(p for p in (str(venv / "bin"), env.get("PATH", "")) if p)
    env["VIRTUAL_ENV"] = str(venv)
    return env


def _venv_site_packages(venv: Path) -> tuple[Path, ...]:
    found = [*sorted(venv.glob("lib/python3*/site-packages")), *sorted(venv.glob("lib64/python3*/site-packages"))]
    return tuple(dict.fromkeys(p.resolve() for p in found))

"""The program's Python environment: the virtualenv Pulumi.yaml names exists and holds what the program's
requirements pin (`pulumi install` builds it from requirements.txt beside the program, else at the project root).
One interpreter call lists what is installed; nothing is installed or imported from the program."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from sahab.doctor import FAIL, OK, Check, DoctorContext

AREA = "python"
_LIST = ("import json, importlib.metadata as m; "
         "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions() if d.metadata['Name']}))")


def canonical(name: str) -> str:
    """PEP 503 normalised project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(text: str) -> dict[str, str | None]:
    """name -> pinned version (None when the line pins none) from a requirements file: continuation lines
    joined, comments, options and hashes dropped, environment markers and extras ignored."""
    wanted: dict[str, str | None] = {}
    for line in text.replace("\\\n", " ").splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        spec = line.split(";", 1)[0].split("--hash", 1)[0].strip()
        found = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(?:==\s*([^\s,]+))?", spec)
        if found:
            wanted[canonical(found.group(1))] = found.group(3)
    return wanted


def checks(ctx: DoctorContext) -> Iterator[Check]:
    from sahab.project import find_project, program_virtualenv

    project = find_project(ctx.project_dir)
    venv = program_virtualenv(project)
    if venv is None:
        python = shutil.which("python3")
        where = "python3 on PATH (Pulumi.yaml names no virtualenv)"
    else:
        python = str(venv / "bin" / "python")
        where = f"the virtualenv {venv}"
    if not python or not Path(python).exists():
        yield Check(AREA, "virtualenv", FAIL, f"{where}: no interpreter",
                    f"pulumi install (in {project.root})")
        return
    main = project.main if project.main.is_dir() else project.main.parent
    file = next((f for f in (main / "requirements.txt", project.root / "requirements.txt") if f.is_file()), None)
    if file is None:
        yield Check(AREA, "virtualenv", OK, f"{where} (the program names no requirements.txt)")
        return
    try:
        done = subprocess.run([python, "-I", "-c", _LIST], capture_output=True, text=True, timeout=ctx.timeout + 20)
        installed = {canonical(k): v for k, v in json.loads(done.stdout).items()}
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        yield Check(AREA, "virtualenv", FAIL, f"{where}: its interpreter did not list its packages "
                    f"({type(exc).__name__})", f"recreate it: pulumi install (in {project.root})")
        return
    wanted = pinned(file.read_text())
    missing = sorted(name for name in wanted if name not in installed)
    wrong = sorted(f"{name} {installed[name]} (wants {version})" for name, version in wanted.items()
                   if name in installed and version and installed[name] != version)
    if missing or wrong:
        found = "; ".join(filter(None, [f"missing {', '.join(missing[:8])}" + (" ..." if len(missing) > 8 else "")
                                        if missing else "", f"other versions: {', '.join(wrong[:8])}" if wrong
                                        else ""]))
        yield Check(AREA, "virtualenv", FAIL, f"{where} does not match {file.name}: {found}",
                    f"pulumi install (in {project.root})")
    else:
        yield Check(AREA, "virtualenv", OK, f"{where} has all {len(wanted)} packages {file} pins")

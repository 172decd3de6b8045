"""Where a violation lives in the repository: the file and line that constructed the resource.

SARIF and text output name the program line that created the resource (recorded by `sahab plan`), relative
to the repository root. A violation without a resource line (a default provider, a site in the stack config)
points at the stack's config file, at the line that mentions it."""

from __future__ import annotations

import re
from pathlib import Path

from sahab.policy_check import CheckResult, Violation


def repository_root(start: Path) -> Path:
    """The nearest folder holding `.git` (a directory, or a file in a worktree); else `start` itself."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def stack_file(result: CheckResult) -> Path | None:
    from sahab.project import find_project

    project = find_project(result.plan.program_dir)
    path = project.stack_config_dir / f"Pulumi.{result.plan.stack}.yaml"
    return path if path.is_file() else None


def location(result: CheckResult, violation: Violation, root: Path) -> tuple[str, int]:
    """(path relative to `root`, 1-based line) for the violation."""
    if violation.source:
        file, line = violation.source
        relative = _relative(Path(file), root)
        if not Path(relative).is_absolute() and "site-packages" not in relative:
            return relative, max(int(line), 1)
    # No program line of its own (or only one inside an SDK): the program or stack file that names it.
    for candidate in (_program_entry(result), stack_file(result)):
        if candidate is not None:
            line = _line_mentioning(candidate, violation)
            if line:
                return _relative(candidate, root), line
    fallback = stack_file(result) or (result.plan.program_dir / "Pulumi.yaml")
    return _relative(fallback, root), 1


def _program_entry(result: CheckResult) -> Path | None:
    from sahab.project import find_project, program_entry

    try:
        return program_entry(find_project(result.plan.program_dir))
    except Exception:
        return None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _line_mentioning(path: Path, violation: Violation) -> int:
    """The first line of the file naming the resource, the site or the setting the message quotes."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return 0
    needles = [violation.name] if violation.name else []
    needles += re.findall(r"\(([a-z0-9-]+)\)", violation.message)  # "sites[1] (dxb-dc1)"
    needles += re.findall(r"'([^']+)'", violation.message)
    if violation.type and violation.type.startswith("pulumi:providers:"):
        needles.insert(0, violation.type.removeprefix("pulumi:providers:") + ":")
    for needle in needles:
        for i, text in enumerate(lines, 1):
            if needle and (f'"{needle}"' in text or f"'{needle}'" in text or (needle.endswith(":") and needle in text)
                           or f" {needle}" in text):
                return i
    return 0

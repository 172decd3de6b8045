"""Where a violation lives in the repository.

A violation caused by a `sahab:fleet` setting lives at that setting's line in `stacks/Pulumi.<stack>.yaml`:
that is where a pull request changes it (`fleet_setting`). Otherwise it lives at the program line that created
the resource (recorded by `sahab plan`), relative to the repository root. A violation without a resource line
(a default provider, a site in the stack config) points at the stack's config file, at the line that mentions it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

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
        where = relative(Path(file), root)
        if not Path(where).is_absolute() and "site-packages" not in where:
            return where, max(int(line), 1)
    # No program line of its own (or only one inside an SDK): the program or stack file that names it.
    for candidate in (_program_entry(result), stack_file(result)):
        if candidate is not None:
            line = _line_mentioning(candidate, violation)
            if line:
                return relative(candidate, root), line
    fallback = stack_file(result) or (result.plan.program_dir / "Pulumi.yaml")
    return relative(fallback, root), 1


def _program_entry(result: CheckResult) -> Path | None:
    from sahab.project import find_project, program_entry

    try:
        return program_entry(find_project(result.plan.program_dir))
    except Exception:
        return None


def relative(path: Path, root: Path) -> str:
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


# ---------------------------------------------------------------------------------------------------------
# The `sahab:fleet` setting a violation comes from

FLEET_KEY = "sahab:fleet"


@dataclass(frozen=True)
class Setting:
    path: str  # e.g. sahab:fleet.clusters[1].public_endpoint
    value: str  # the scalar as written (lower-cased for booleans)
    line: int  # 1-based
    owners: tuple[str, ...]  # the `name` of every list element above it, outermost first


def fleet_settings(path: Path) -> list[Setting]:
    """Every scalar under `config: sahab:fleet:` in a stack file, with its line."""
    try:
        root = yaml.compose(path.read_text())
    except (OSError, yaml.YAMLError):
        return []
    config = _child(root, "config")
    fleet = _child(config, FLEET_KEY)
    found: list[Setting] = []
    if fleet is not None:
        _walk(fleet, FLEET_KEY, (), found)
    return found


def _child(node, key: str):
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v
    return None


def _walk(node, path: str, owners: tuple[str, ...], found: list[Setting]) -> None:
    if isinstance(node, yaml.ScalarNode):
        found.append(Setting(path, node.value, node.start_mark.line + 1, owners))
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _walk(v, f"{path}.{k.value}", owners, found)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            name = _child(item, "name")
            own = (*owners, name.value) if isinstance(name, yaml.ScalarNode) else owners
            _walk(item, f"{path}[{i}]", own, found)


def _quoted_values(message: str) -> tuple[list[str], list[str]]:
    """(strings the message quotes, scalars it says a property `is`): what a setting's value could be."""
    strings = re.findall(r"'([^']+)'", message) + re.findall(r"\(([a-z0-9][a-z0-9-]*)\)", message)
    scalars = re.findall(r"`[^`]+` is (\w[\w.-]*)", message)
    return strings, scalars


def fleet_setting(result: CheckResult, violation: Violation) -> Setting | None:
    """The `sahab:fleet` setting whose value the violation names, for the resource it names.

    A quoted string (a region, an instance type, a site) is a setting's value wherever it is written; a bare
    scalar (`true`, `0`) only in the list element (cluster, pool, bucket, site) the resource was built for.
    Among several, the one inside the element whose name is the longest part of the resource's name wins."""
    file = stack_file(result)
    if file is None:
        return None
    strings, scalars = _quoted_values(violation.message)
    if not strings and not scalars:
        return None
    resource = violation.name or ""
    best: tuple[int, int, Setting] | None = None
    for setting in fleet_settings(file):
        value = setting.value
        owned = max((len(o) for o in setting.owners if o and o in resource), default=0)
        if value in strings:
            score = owned + 1
        elif value.lower() in (s.lower() for s in scalars) and owned:
            score = owned
        else:
            continue
        if best is None or score > best[0]:
            best = (score, -setting.line, setting)
    return best[2] if best else None

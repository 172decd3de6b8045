"""What a StackReference reads offline: the outputs of a local project's stack, from that stack's own plan.

`org/project/stack` (or `stack`, `org/stack`: the referencing project) names a project by its Pulumi.yaml
`name`. It is looked for in the referencing project's folder, its subfolders and its sibling folders; the
stack must have its `Pulumi.<stack>.yaml`. That stack is planned in a worker of its own as a deployed
stack (outputs known, as a real StackReference reads them). A stack that is not here answers None: its
outputs stay unknown, as in a preview against a stack that has not been deployed.

A reference that leads back to a stack already being planned is a cycle: an error naming the stacks,
never a runaway of processes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sahab.errors import ProgramError, SahabError
from sahab.project import Project, StackConfig, find_project

CHAIN_ENV = "SAHAB_STACK_CHAIN"  # the stacks being planned, outermost first: `project/stack,...`

_cache: dict[tuple[str, str], dict[str, Any] | None] = {}


class StackReferenceCycle(ProgramError):
    """StackReferences that lead back to a stack being planned."""


def referenced_outputs(reference: str, project: Project, config: StackConfig) -> dict[str, Any] | None:
    """The wire-format outputs of the stack `reference` names, or None when that stack is not here."""
    from sahab.engine import plan

    parts = [p for p in str(reference).split("/") if p]
    if not parts:
        return None
    stack = parts[-1]
    project_name = parts[-2] if len(parts) >= 3 else project.name
    here = f"{project.name}/{config.name}"
    chain = [c for c in os.environ.get(CHAIN_ENV, "").split(",") if c] or [here]
    target = f"{project_name}/{stack}"
    if target in chain:
        path = " -> ".join([*chain[chain.index(target):], target])
        raise StackReferenceCycle(f"{project.main}: stack reference cycle: {path}; a stack cannot read its own "
                                  f"outputs, directly or through others")
    folder = find_local_project(project_name, stack, project)
    if folder is None:
        return None
    key = (str(folder), stack)
    if key not in _cache:
        previous = os.environ.get(CHAIN_ENV)
        os.environ[CHAIN_ENV] = ",".join([*chain, target])
        try:
            _cache[key] = plan(folder, stack, preview=False).secret_outputs
        except StackReferenceCycle:
            raise
        except SahabError as exc:
            if "stack reference cycle" in str(exc):
                raise StackReferenceCycle(str(exc)) from None
            raise ProgramError(f"{project.main}: stack reference {reference}: {exc}") from None
        finally:
            if previous is None:
                os.environ.pop(CHAIN_ENV, None)
            else:
                os.environ[CHAIN_ENV] = previous
    return _cache[key]


def find_local_project(name: str, stack: str, near: Project) -> Path | None:
    """The folder of project `name` with stack `stack`: this project, one below it, or a sibling."""
    candidates = [near.root, *_subfolders(near.root), *_subfolders(near.root.parent)]
    for folder in candidates:
        if not (folder / "Pulumi.yaml").is_file() and not (folder / "Pulumi.yml").is_file():
            continue
        try:
            found = find_project(folder)
        except SahabError:
            continue
        if found.name == name and (found.stack_config_dir / f"Pulumi.{stack}.yaml").is_file():
            return found.root
    return None


def _subfolders(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []

"""What a StackReference reads offline: the outputs of a local project's stack, from that stack's own run.

`org/project/stack` (or `stack`, `org/stack`: the referencing project) names a project by its Pulumi.yaml
`name`. It is looked for in the referencing project's folder, its subfolders and its sibling folders; the
stack must have its `Pulumi.<stack>.yaml`. That stack is run as `pulumi up` would leave it (the update run:
outputs known, as a real StackReference reads them). A stack that is not here answers None: its outputs stay
unknown.

A reference that leads back to a stack already being planned is a cycle: an error naming the stacks, never a
runaway of processes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sahab.engine.plan_types import Plan
from sahab.errors import ProgramError, SahabError
from sahab.project import Project, StackConfig, find_project


class StackReferenceCycle(ProgramError):
    """StackReferences that lead back to a stack being planned."""


@dataclass
class References:
    """The stacks being planned (outermost first) and the outputs already read, shared by every run of one plan."""

    chain: tuple[str, ...] = ()
    cache: dict[tuple[str, str], Plan] = field(default_factory=dict)
    locks: dict[tuple[str, str], threading.Lock] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def inside(self, target: str) -> References:
        """The references of a referenced stack's own run: one longer chain, the same cache."""
        return References(chain=(*self.chain, target), cache=self.cache, locks=self.locks, lock=self.lock)


# Runs a local stack as deployed: (folder, stack, references) -> its plan.
RunStack = Callable[[Path, str, References], Plan]


def referenced_plan(reference: str, project: Project, config: StackConfig, refs: References,
                    run_stack: RunStack) -> Plan | None:
    """The plan (as deployed) of the stack `reference` names, or None when that stack is not here."""
    parts = [p for p in str(reference).split("/") if p]
    if not parts:
        return None
    stack = parts[-1]
    project_name = parts[-2] if len(parts) >= 3 else project.name
    chain = refs.chain or (f"{project.name}/{config.name}",)
    target = f"{project_name}/{stack}"
    if target in chain:
        path = " -> ".join([*chain[chain.index(target):], target])
        raise StackReferenceCycle(f"{project.main}: stack reference cycle: {path}; a stack cannot read its own "
                                  f"outputs, directly or through others")
    folder = find_local_project(project_name, stack, project)
    if folder is None:
        return None
    key = (str(folder), stack)
    with refs.lock:
        key_lock = refs.locks.setdefault(key, threading.Lock())
    with key_lock:  # both runs of a check read the same stack: plan it once
        if key not in refs.cache:
            try:
                refs.cache[key] = run_stack(folder, stack, References(chain, refs.cache, refs.locks, refs.lock)
                                            .inside(target))
            except StackReferenceCycle:
                raise
            except SahabError as exc:
                raise ProgramError(f"{project.main}: stack reference {reference}: {exc}") from None
        return refs.cache[key]


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

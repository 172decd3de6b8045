"""A stack's seed list, from its fleet (`sahab:fleet` in Pulumi.<stack>.yaml) and the digests recorded beside it
(`<stackConfigDir>/digests.lock`): the one list `registry list`, `seed`, `pin` and the readiness verdict share."""

from __future__ import annotations

import json
from pathlib import Path

from sahab.components.artifacts import read_digest_lock
from sahab.components.fleet_config import FleetConfig, parse_fleet
from sahab.components.registry_plan import Entry, seed_list
from sahab.errors import ConfigError
from sahab.project import Project, load_stack

LOCK_NAME = "digests.lock"


def digest_lock(project: Project) -> Path:
    """Where the stack config folder records the digests (stacks/digests.lock for Sahab's own project)."""
    return project.stack_config_dir / LOCK_NAME


def fleet_of(project: Project, stack: str, required: bool = True) -> FleetConfig | None:
    """The stack's fleet; None (or, when `required`, a ConfigError) for a stack without `sahab:fleet`."""
    config = load_stack(project, stack)
    raw = config.values.get("sahab:fleet")
    if raw is None:
        if not required:
            return None
        raise ConfigError("sahab:fleet", f"missing in {config.path.name}; every stack sets its whole fleet under it")
    return parse_fleet(json.loads(raw) if isinstance(raw, str) else raw)


def entries(project: Project, stack: str, digests: dict[str, str] | None = None) -> tuple[FleetConfig, list[Entry]]:
    fleet = fleet_of(project, stack)
    return fleet, seed_list(fleet, read_digest_lock(digest_lock(project)) if digests is None else digests)


def seeded(project: Project, stack: str) -> dict[str, set[str]] | None:
    """The references each cluster kind's registry holds once seeded; None for a program that is not a fleet."""
    fleet = fleet_of(project, stack, required=False)
    if fleet is None:
        return None
    held: dict[str, set[str]] = {}
    for entry in seed_list(fleet, read_digest_lock(digest_lock(project))):
        held.setdefault(entry.cluster_kind, set()).add(entry.target)
    return held

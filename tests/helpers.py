"""Test helpers: lookups over planned resources, real stacks planned once, a recorder for components."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sahab.engine import PlannedResource
from tests.plans import stack_plan


class Planned:
    """Lookups over one plan's resources."""

    def __init__(self, resources: list[PlannedResource], outputs: dict[str, Any] | None = None):
        self.resources = resources
        self.outputs = outputs or {}
        self.by_urn = {r.urn: r for r in resources}

    def of(self, token: str) -> list[PlannedResource]:
        return [r for r in self.resources if r.type == token]

    def one(self, token: str) -> PlannedResource:
        found = self.of(token)
        assert len(found) == 1, f"expected one {token}, found {len(found)}"
        return found[0]

    def by_id(self, token: str, rid: str) -> PlannedResource:
        found = [r for r in self.of(token) if r.id == rid or r.outputs.get("arn") == rid]
        assert found, f"no {token} with id/arn {rid}"
        return found[0]

    def children_of(self, parent: PlannedResource, token: str) -> list[PlannedResource]:
        return [r for r in self.of(token) if r.parent == parent.urn]

    def region_of(self, res: PlannedResource) -> str | None:
        """The effective AWS region: the resource's own `region` input, else its provider's."""
        if res.inputs.get("region"):
            return res.inputs["region"]
        provider = self.by_urn.get(res.provider or "")
        return provider.inputs.get("region") if provider else None


def planned_stack(stack: str) -> Planned:
    result = stack_plan(stack)  # planned once per session, shared with the other directories
    return Planned(result.resources, result.outputs)


def record(build: Callable[[], Any]) -> Planned:
    """Run `build` (which constructs components) against the engine, every output resolved; return what it
    registered.

    Raises what `build` raises, as a program would fail. What `build` exports is in `.outputs` (secrets
    redacted) and `.revealed_outputs`."""
    from sahab.engine.inprocess import record as record_run
    from sahab.engine.wire import to_plain

    recording = record_run(build)
    raw = recording.stack_outputs
    planned = Planned(recording.resources, to_plain(raw))
    planned.revealed_outputs = to_plain(raw, redact=False)
    return planned

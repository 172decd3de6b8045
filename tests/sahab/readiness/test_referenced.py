"""A burst stack is judged with the stack that owns its clusters, whose plan the burst run already made (it read
that stack's outputs through a StackReference): readiness takes it from the run instead of planning it again."""

from __future__ import annotations

from sahab.readiness import referenced
from tests.plans import stack_plan


def test_the_owning_stacks_plan_comes_from_the_run_that_read_its_outputs(monkeypatch):
    burst = stack_plan("burst", preview=True)
    prod = stack_plan("prod")
    assert (str(burst.program_dir), "prod") in burst.deployed

    def planned_again(*args, **kwargs):
        raise AssertionError("prod planned a second time")

    monkeypatch.setattr(referenced, "plan", planned_again)
    resources, warnings = referenced.referenced_resources(burst)
    assert warnings == []
    assert [r.urn for r in resources] == [r.urn for r in prod.resources]


def test_a_plan_that_read_no_stack_has_readiness_plan_the_owner(monkeypatch):
    burst = stack_plan("burst", preview=True)
    burst.deployed.clear()  # as if the run had read no stack through its references
    prod = stack_plan("prod")
    asked = []
    monkeypatch.setattr(referenced, "plan", lambda folder, stack: asked.append(stack) or prod)
    resources, _ = referenced.referenced_resources(burst)
    assert asked == ["prod"] and len(resources) == len(prod.resources)

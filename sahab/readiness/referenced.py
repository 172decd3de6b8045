"""The plans of stacks a plan reads through StackReferences, when they are stacks of the same project.

A burst stack adds node pools to clusters another stack owns; whether those pools can scale or run pods
depends on what the owning stack installs there, so readiness judges them together with its plan."""

from __future__ import annotations

from sahab.engine import Plan, PlannedResource, plan
from sahab.errors import SahabError
from sahab.project import find_project, load_stack

STACK_REFERENCE = "pulumi:pulumi:StackReference"


def referenced_resources(result: Plan) -> tuple[list[PlannedResource], list[str]]:
    """Resources of every same-project stack the plan references, and a warning per stack that cannot be planned."""
    resources: list[PlannedResource] = []
    warnings: list[str] = []
    seen = {result.stack}
    for ref in (r for r in result.resources if r.type == STACK_REFERENCE):
        name = str(ref.inputs.get("name") or ref.name)
        parts = name.split("/")
        stack = parts[-1]
        if stack in seen or (len(parts) == 3 and parts[1] != result.project):
            continue
        seen.add(stack)
        try:
            load_stack(find_project(result.program_dir), stack)  # only stacks with a config file here
            deployed = result.deployed.get((str(result.program_dir), stack))  # planned by the run already
            resources += (deployed or plan(result.program_dir, stack)).resources
        except SahabError as exc:
            warnings.append(f"readiness: stack reference {name} not judged with its stack: {exc}")
    return resources, warnings

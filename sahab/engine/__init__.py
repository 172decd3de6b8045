"""The offline engine: a Pulumi Python program hosted as the Pulumi CLI hosts it, and everything it registers.

    plan_types  the data types (Plan, PlannedResource) and wire constants; imports nothing else of the engine
    wire        Pulumi's wire format decoded (secrets, references, unknowns)
    toolchain   which interpreter runs the program (its virtualenv: pip, poetry, uv), with what environment
    langhost/   the executor the program's interpreter runs (the CLI's pulumi-language-python-exec, for Sahab)
    host        one run of a program: serve the gRPC services, start the process, collect a Plan
    monitor     the ResourceMonitor and Engine services: registrations, transforms, invokes, outputs
    outputs     what a provider answers for a resource, preview and update
    sdk_types   what a provider SDK declares its outputs are, read from the program's own SDK files
    values      realistic values of a declared type (ARNs, ids, endpoints in the resource's region)
    invokes     answers to lookups and provider functions; places unknown unless declared
    inventory   the existing resources a stack declares (`sahab:existing`), with their places
    kubernetes  Kubernetes YAML decoded locally (yaml:decode, yaml/v2 components)
    stack_refs  StackReferences to local stacks, with cycle detection

`plan()` runs a program once (preview, or the update `pulumi up` would make); `plan_phases()` runs both at once
for `sahab check`; within `warm_hosts()`, runs fork from interpreters that imported the SDKs once.
"""

from __future__ import annotations

from typing import Any

from sahab.engine.plan_types import PREVIEW, UNKNOWN, UPDATE, Plan, PlannedResource

__all__ = ["PREVIEW", "UNKNOWN", "UPDATE", "Plan", "PlannedResource", "plan", "plan_phases", "resolve_timeout",
           "warm_hosts"]


def __getattr__(name: str) -> Any:
    # Running a program needs grpc and the Pulumi SDK; reading a plan needs neither.
    if name in ("plan", "plan_phases", "resolve_timeout", "warm_hosts"):
        from sahab.engine import host

        return getattr(host, name)
    raise AttributeError(f"module 'sahab.engine' has no attribute {name!r}")

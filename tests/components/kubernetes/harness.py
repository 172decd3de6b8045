"""Run Pulumi code under Sahab's mocks and get every registered resource, as `sahab plan` records them."""

from __future__ import annotations

from collections.abc import Callable

import pulumi
import pulumi_kubernetes as k8s

from sahab.engine import PlannedResource
from sahab.engine.inprocess import record as record_run
from sahab.engine.kubernetes import kubeconfig_yaml


def record(program: Callable[[], None]) -> list[PlannedResource]:
    """Run `program` (which constructs resources) against the engine; return the recorded resources."""
    return record_run(program).resources


def provider(name: str = "cluster") -> k8s.Provider:
    """A cluster's provider as Fleet makes one: from a (secret) kubeconfig."""
    kubeconfig = pulumi.Output.secret(kubeconfig_yaml(name, f"https://{name}.example.internal:6443"))
    return k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig)


def with_provider(build: Callable[[pulumi.ResourceOptions], None]) -> list[PlannedResource]:
    """Record `build(opts)` where opts carries a cluster provider, as the caller of a component passes it."""
    return record(lambda: build(pulumi.ResourceOptions(providers={"kubernetes": provider()})))


def of_type(resources: list[PlannedResource], type_: str) -> list[PlannedResource]:
    return [r for r in resources if r.type == type_]


def one(resources: list[PlannedResource], type_: str, name: str | None = None) -> PlannedResource:
    found = [r for r in of_type(resources, type_) if name is None or r.name == name]
    assert len(found) == 1, f"expected one {type_} {name or ''}, found {[r.name for r in found]}"
    return found[0]

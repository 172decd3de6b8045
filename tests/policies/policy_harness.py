"""Run the pack's own Policy objects on synthetic resources, as the engine would during preview.

Props go through pulumi_policy's unknown-checking proxy, so an unknown value raises `UnknownValueError` on
access exactly as under `pulumi preview --policy-pack`."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyProviderResource,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
)
from pulumi_policy.proxy import UNKNOWN_BOOLEAN_VALUE, UNKNOWN_STRING_VALUE, unknown_checking_proxy
from sahab.policies import pack

UNKNOWN = UNKNOWN_STRING_VALUE
UNKNOWN_BOOL = UNKNOWN_BOOLEAN_VALUE
STACK = "urn:pulumi:test::proj::"


def urn(type_: str, name: str) -> str:
    return f"{STACK}{type_}::{name}"


@dataclass
class Res:
    type: str
    props: dict[str, Any]
    name: str = "r"
    provider: dict[str, Any] | None = None  # provider settings, e.g. {"region": "eu-west-1"}
    provider_type: str = "pulumi:providers:aws"
    deps: dict[str, list[str]] = field(default_factory=dict)  # input -> names of resources in the same stack
    provider_name: str = "default"  # the engine's name for a default provider; anything else is explicit

    @property
    def urn(self) -> str:
        return urn(self.type, self.name)


@dataclass
class Stack:
    resources: list[Res]
    config: dict[str, Any] = field(default_factory=dict)


def _opts() -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], None)


def _provider(res: Res):
    if res.provider is None:
        return None
    # One provider per provider type, named as the engine names a program's default provider (`default`, or
    # `default_<version>`: only those take the stack's `<package>:*` config; a Kubernetes provider is a cluster).
    name = res.provider_name
    return PolicyProviderResource(res.provider_type, unknown_checking_proxy(dict(res.provider)),
                                  urn(res.provider_type, name), name)


def run(policy_name: str, scenario: Res | Stack, config: dict | None = None, waivers=None,
        today: dt.date | None = None, phase: str = "preview") -> list[tuple[str, str | None]]:
    """Violations (message, urn) the named policy reports for the scenario, in `phase` ("preview" or "update":
    what is unknown then is unknown for good)."""
    policy = next(p for p in pack.POLICIES if p.name == policy_name)
    stack = scenario if isinstance(scenario, Stack) else Stack([scenario])
    session = pack.Session(stack_config=stack.config, waivers=list(waivers or []),
                           today=today or dt.date(2026, 6, 1), phase=phase)
    token = pack.open_session(session)
    found: list[tuple[str, str | None]] = []
    try:
        if isinstance(policy, ResourceValidationPolicy):
            for res in stack.resources:
                args = ResourceValidationArgs(res.type, unknown_checking_proxy(res.props), res.urn, res.name, _opts(),
                                              _provider(res), config or {})
                policy.validate(args, lambda m, u=None, _u=res.urn: found.append((m, _u)))
        else:
            by_name = {}
            resources = []
            for res in stack.resources:
                pr = PolicyResource(res.type, unknown_checking_proxy(res.props), res.urn, res.name, _opts(),
                                    _provider(res), None, [], {})
                by_name[res.name] = pr
                resources.append(pr)
            for res, pr in zip(stack.resources, resources, strict=True):
                pr.property_dependencies = {k: [by_name[n] for n in v] for k, v in res.deps.items()}
            policy.validate(StackValidationArgs(resources, config or {}), lambda m, u=None: found.append((m, u)))
    finally:
        pack.close_session(token)
    return found

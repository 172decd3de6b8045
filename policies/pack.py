"""The CrossGuard adapter: every `Rule` of the catalog as a pulumi_policy `Policy`, built once.

`POLICIES` is what `policies/__main__.py` hands to `PolicyPack` and what `sahab check` calls offline. Each
policy's `validate` builds a `ResourceView` (or, for stack rules, one view per resource) from the SDK's own
argument objects, runs the rule, and reports every finding that no active waiver covers. Findings covered
by an expired waiver are reported with a note that the waiver has expired.

Where the values come from, under `pulumi preview` and offline alike:
* the rule's settings (allowed regions, countries, `global` Azure types): the policy's config
  (`--policy-pack-config`), defaulting to the UAE lists in `policies.core`;
* the stack config (`aws:region`, `sahab:fleet`): the current `Session`; under the Pulumi CLI it is read from
  the `PULUMI_CONFIG` environment the CLI gives the pack, and `sahab check` sets it from the plan;
* the waivers: the session's, by default `policies/waivers.yaml`.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyComplianceFramework,
    PolicyConfigSchema,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

from . import core, egress
from .waivers import Waiver, decide, load_waivers

PACK_NAME = "sahab-uae-residency"

# ---------------------------------------------------------------------------------------------------------
# The session: stack config, waivers and the record of what they waived


@dataclass
class Session:
    stack_config: Mapping[str, Any]
    waivers: list[Waiver]
    today: dt.date = field(default_factory=lambda: dt.datetime.now(dt.UTC).date())
    # "preview": values computed by providers are unknown; "update": the program's values are resolved, so what is
    # still unknown stays unknown (a lookup offline). Under the Pulumi CLI the pack sees a preview at `pulumi
    # preview` and known inputs at `pulumi up`.
    phase: str = "preview"
    waived: list[tuple[str, str | None, str, Waiver]] = field(default_factory=list)  # (policy, urn, message, by)


_SESSION: contextvars.ContextVar[Session | None] = contextvars.ContextVar("sahab_policy_session", default=None)
_default: Session | None = None
_default_lock = threading.Lock()


def current_session() -> Session:
    """The session `sahab check` opened, else the one for the Pulumi CLI (config from its environment)."""
    global _default
    session = _SESSION.get()
    if session is not None:
        return session
    with _default_lock:
        if _default is None:
            _default = Session(stack_config=_config_from_environment(), waivers=load_waivers())
        return _default


def open_session(session: Session) -> contextvars.Token:
    return _SESSION.set(session)


def close_session(token: contextvars.Token) -> None:
    _SESSION.reset(token)


def _config_from_environment() -> dict[str, Any]:
    """The stack config the Pulumi CLI passes to policy packs (`PULUMI_CONFIG`), structured values parsed."""
    import pulumi.runtime

    return {k: parse_config_value(v) for k, v in pulumi.runtime.get_config_env().items()}


def parse_config_value(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


# ---------------------------------------------------------------------------------------------------------
# Building views from the SDK's argument objects


IDENTITY_PROPS = ("id", "arn", "bucket", "name")


def identities_of(props: Mapping[str, Any], resource_type: str | None = None) -> frozenset[str]:
    """The values that name the resource elsewhere: its id, ARN (and the ARN output named after its type, a DMS
    endpoint's `endpointArn`), bucket name, name, and the input its type names itself by (an Azure storage account's
    `accountName`: the egress model's `name`), so a destination given the plain name of a resource of the program is
    that resource."""
    found = set()
    own = egress.own_name_input(resource_type) if resource_type else None
    keys = (*IDENTITY_PROPS, *([own] if own else ()),
            *(egress.own_arn_outputs(props, resource_type) if resource_type else ()))
    for key in keys:
        value = core.lookup(props, key)
        if isinstance(value, str) and value:
            found.add(value)
    return frozenset(found)


def _provider_view(provider: Any) -> core.ProviderView | None:
    if provider is None:
        return None
    return core.ProviderView(provider.resource_type, provider.name, provider.urn, provider.props)


def view_of_args(args: ResourceValidationArgs) -> core.ResourceView:
    return core.ResourceView(type=args.resource_type, name=args.name, urn=args.urn, props=args.props,
                             provider=_provider_view(args.provider), parent=args.opts.parent)


_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def view_of_resource(resource: Any) -> core.ResourceView:
    """The view of a stack resource, built once per resource object (every stack policy reads the same list)."""
    view = _VIEWS.get(resource)
    if view is None:
        view = _VIEWS[resource] = _build_view(resource)
    return view


def _build_view(resource: Any) -> core.ResourceView:
    deps = {k: tuple(d.urn for d in v) for k, v in (resource.property_dependencies or {}).items()}
    return core.ResourceView(type=resource.resource_type, name=resource.name, urn=resource.urn, props=resource.props,
                             provider=_provider_view(resource.provider),
                             parent=resource.parent.urn if resource.parent is not None else None,
                             property_dependencies=deps,
                             identities=identities_of(resource.props, resource.resource_type))


def context_for(settings: Mapping[str, Any], session: Session,
                resources: tuple[core.ResourceView, ...] = (), rule: core.Rule | None = None) -> core.Context:
    def setting(key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = settings.get(key) if settings else None
        return tuple(value) if isinstance(value, (list, tuple)) and value else default

    return core.Context(
        allowed_regions=setting("allowedRegions", core.DEFAULT_ALLOWED_REGIONS),
        allowed_countries=setting("allowedCountries", core.DEFAULT_ALLOWED_COUNTRIES),
        global_location_types=setting("globalLocationTypes", core.DEFAULT_GLOBAL_LOCATION_TYPES),
        stack_config=session.stack_config, resources=resources, settings=dict(settings or {}), phase=session.phase,
        unknown=rule.unknown if rule is not None else None)


# ---------------------------------------------------------------------------------------------------------
# Rules as policies

RESIDENCY_SCHEMA = PolicyConfigSchema(properties={
    "allowedRegions": {"type": "array", "items": {"type": "string"}, "default": list(core.DEFAULT_ALLOWED_REGIONS),
                       "description": "AWS regions and Azure locations resources may use."},
    "allowedCountries": {"type": "array", "items": {"type": "string"},
                         "default": list(core.DEFAULT_ALLOWED_COUNTRIES),
                         "description": "ISO 3166 codes of the countries on-prem sites may be in."},
    "globalLocationTypes": {"type": "array", "items": {"type": "string"},
                            "default": list(core.DEFAULT_GLOBAL_LOCATION_TYPES),
                            "description": "Azure resource types allowed the `global` location."},
    "allowedDestinations": {"type": "array", "items": {"type": "string"},
                            "description": "Destinations outside this program that data may be sent to: ARNs, "
                                           "resource ids, bucket names, hosts (`*.` + a domain for every host "
                                           "under it). Only the trusted policy config may name them."},
})

def config_schema(rule: core.Rule) -> PolicyConfigSchema | None:
    """The policy-config keys a rule takes: the residency settings, and the rule's own."""
    properties = dict(RESIDENCY_SCHEMA.properties) if rule.residency else {}
    properties |= rule.settings
    return PolicyConfigSchema(properties=properties) if properties else None


_LEVELS = {core.Enforcement.ADVISORY: EnforcementLevel.ADVISORY,
           core.Enforcement.MANDATORY: EnforcementLevel.MANDATORY,
           core.Enforcement.DISABLED: EnforcementLevel.DISABLED}


def _reporter(rule: core.Rule, report_violation, default_urn: str | None):
    """Report a finding unless an active waiver covers it; say so when only an expired one does."""
    session = current_session()

    def report(finding: core.Finding) -> None:
        urn = finding.urn or default_urn
        active, expired = decide(session.waivers, rule.id, rule.name, urn, session.today)
        if active is not None:
            session.waived.append((rule.name, urn, finding.message, active))
            return
        message = f"[{rule.id}] {finding.message}"
        if expired is not None:
            message += f" (the {expired.describe()} has expired and no longer waives this)"
        message += f"\nRemediation: {rule.remediation}"
        if rule.scope == "stack":
            report_violation(message, urn)
        else:
            report_violation(message)

    return report


def _resource_policy(rule: core.Rule) -> ResourceValidationPolicy:
    def validate(args: ResourceValidationArgs, report_violation) -> None:
        if not rule.applies_to(args.resource_type):
            return
        report = _reporter(rule, report_violation, args.urn)
        ctx = context_for(args.get_config(), current_session(), rule=rule)
        for finding in rule.run_resource(view_of_args(args), ctx):
            report(finding)

    return ResourceValidationPolicy(validate=validate, **_metadata(rule))


def _stack_policy(rule: core.Rule) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation) -> None:
        report = _reporter(rule, report_violation, None)
        views = tuple(view_of_resource(r) for r in args.resources)
        ctx = context_for(args.get_config(), current_session(), views, rule)
        for finding in rule.run_stack(ctx):
            report(finding)

    return StackValidationPolicy(validate=validate, **_metadata(rule))


def _metadata(rule: core.Rule) -> dict[str, Any]:
    first = rule.frameworks[0]
    return dict(
        name=rule.name,
        description=f"{rule.id}: {rule.description}",
        enforcement_level=_LEVELS[rule.enforcement],
        config_schema=config_schema(rule),
        display_name=f"{rule.id} {rule.title}",
        severity=Severity(rule.severity.value),
        framework=PolicyComplianceFramework(name=first.name, reference=first.reference),
        tags=[rule.id, "residency" if rule.residency else "encryption"]
             + [f"{f.name}: {f.reference}" for f in rule.frameworks],
        remediation_steps=rule.remediation,
    )


def build_policies() -> list[Policy]:
    return [(_resource_policy if r.scope == "resource" else _stack_policy)(r) for r in core.all_rules()]


POLICIES: list[Policy] = build_policies()
RULES_BY_NAME: dict[str, core.Rule] = {r.name: r for r in core.all_rules()}

"""The rule core: one definition per rule, a pure function over a plain view of a resource.

Every rule in this pack is a `Rule` whose `check` reads a `ResourceView` (one resource) or a `Context`
(the whole stack) and yields `Finding`s. Nothing here imports Pulumi, boto3 or a component, so three adapters
can share the rules:

* the CrossGuard pack (`policies/pack.py`), under `pulumi preview --policy-pack policies`;
* `sahab check`, which feeds the same `Policy` objects the resources of an offline `sahab plan`;
* `sahab audit aws`, which reads live AWS APIs and adapts their shapes.

How an adapter builds the view
------------------------------
`ResourceView.type` is the Pulumi type token (`aws:s3/bucket:Bucket`, `azure-native:storage:StorageAccount`,
`kubernetes:storage.k8s.io/v1:StorageClass`). `props` are the resource's properties in the engine's camelCase
shape, exactly as `sahab plan --format json` lists them under `inputs` (e.g. `{"enableKeyRotation": true}` for
a KMS key). A value may be unknown: either the SDK's unknown-checking proxy raises `UnknownValueError` when it
is read, or the raw sentinel string is there; rules read values only through `lookup`, which turns both into
`UNKNOWN`, and an absent value into `MISSING`. An adapter reading a live cloud never has unknowns.

`provider` is the provider that manages the resource (`pulumi:providers:aws` and its settings, e.g.
`{"region": "eu-west-1"}`); a live adapter fills it with the region it read the resource from.
`property_dependencies` maps an input to the URNs of the resources its value came from; stack-level rules use it
to tie a bucket to its separate encryption, policy and replication resources even when the value itself is
unknown in preview. `identities` are values that name the resource elsewhere (its id, ARN, bucket name): a live
adapter, which has no URNs, correlates through them alone.

`Context` carries the settings (allowed regions, countries, `global` Azure types), the stack's config as
`namespace:key` -> parsed value (e.g. `{"aws:region": "me-central-1", "sahab:fleet": {...}}`) and, for stack
rules, every resource of the stack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# ---------------------------------------------------------------------------------------------------------
# Values that may be unknown during preview


class _Marker:
    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __bool__(self) -> bool:
        return False


UNKNOWN = _Marker("UNKNOWN")
"""A value the engine will only know after the update (e.g. the ARN of a key created in the same run)."""
MISSING = _Marker("MISSING")
"""A property the resource does not set."""

# The engine's sentinels for unknown values (pulumi sdk/go/common/resource/plugin, pulumi_policy.proxy).
UNKNOWN_SENTINELS = frozenset({
    "04da6b54-80e4-46f7-96ec-b56ff0331ba9",  # string
    "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",  # boolean
    "3eeb2bf0-c639-47a8-9e75-3b44932eb421",  # number
    "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",  # array
    "030794c1-ac77-496b-92df-f27374a8bd58",  # asset
    "e48ece36-62e2-4504-bad9-02848725956a",  # archive
    "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",  # object
})


def _is_unknown_error(exc: BaseException) -> bool:
    # pulumi_policy.proxy.UnknownValueError, matched by name so the core needs no Pulumi import.
    return type(exc).__name__ == "UnknownValueError"


def known(value: Any) -> bool:
    """True for a value that is neither UNKNOWN nor MISSING."""
    return value is not UNKNOWN and value is not MISSING


def is_unknown(value: Any) -> bool:
    """Whether a value is unknown until the update runs: UNKNOWN, or the engine's text for it."""
    return value is UNKNOWN or (isinstance(value, str) and value in UNKNOWN_SENTINELS)


def lookup(props: Any, *path: str | int) -> Any:
    """Read `props[path[0]][path[1]]...`: the value, `UNKNOWN` if any step is unknown, else `MISSING`.

    Works on plain dicts/lists and on the SDK's unknown-checking proxies (which raise on unknown reads).
    A step into a list by a string key is not an error; it is MISSING, as is `None`."""
    value = props
    for step in path:
        if isinstance(value, str) and value in UNKNOWN_SENTINELS:
            return UNKNOWN
        try:
            if isinstance(step, int):
                if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
                    return MISSING
                value = value[step]
            else:
                if not isinstance(value, Mapping):
                    return MISSING
                value = value[step]
        except (KeyError, IndexError, TypeError):
            return MISSING
        except Exception as exc:
            if _is_unknown_error(exc):
                return UNKNOWN
            raise
    if value is None:
        return MISSING
    if isinstance(value, str) and value in UNKNOWN_SENTINELS:
        return UNKNOWN
    return value


def items(props: Any, *path: str | int) -> list[Any]:
    """The list at `path` ([] if missing), with each element as stored. UNKNOWN stays UNKNOWN."""
    value = lookup(props, *path)
    if value is UNKNOWN:
        return [UNKNOWN]
    if value is MISSING or isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        return [] if value is MISSING else [value]
    out = []
    for i in range(len(value)):
        out.append(lookup(value, i))
    return out


def truthy(value: Any) -> bool:
    """`true`, `"true"` (some provider fields are strings) and the like."""
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return value is True


# ---------------------------------------------------------------------------------------------------------
# The view an adapter builds


@dataclass(frozen=True)
class ProviderView:
    type: str  # pulumi:providers:aws
    name: str
    urn: str
    props: Mapping[str, Any]  # provider settings, e.g. {"region": "eu-west-1"}


@dataclass(frozen=True)
class ResourceView:
    type: str
    name: str
    urn: str
    props: Mapping[str, Any]
    provider: ProviderView | None = None
    parent: str | None = None
    property_dependencies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    identities: frozenset[str] = frozenset()
    custom: bool = True

    @property
    def package(self) -> str:
        return self.type.split(":", 1)[0]

    def depends_on(self, prop: str, other: ResourceView) -> bool:
        """Whether input `prop` of this resource was computed from `other` (or names it by value)."""
        if other.urn and other.urn in self.property_dependencies.get(prop, ()):
            return True
        value = lookup(self.props, prop)
        return isinstance(value, str) and value in other.identities


# Defaults of the settings every residency rule reads (overridable per stack, see policies/README.md).
DEFAULT_ALLOWED_REGIONS = ("me-central-1", "uaenorth", "uaecentral")
DEFAULT_ALLOWED_COUNTRIES = ("AE",)
# Azure types whose `global` location is a control-plane object holding no data in a region.
DEFAULT_GLOBAL_LOCATION_TYPES = (
    "azure-native:privatedns:PrivateZone",
    "azure-native:privatedns:VirtualNetworkLink",
    "azure-native:dns:Zone",
    "azure-native:monitor:ActionGroup",
)


@dataclass(frozen=True)
class Context:
    allowed_regions: tuple[str, ...] = DEFAULT_ALLOWED_REGIONS
    allowed_countries: tuple[str, ...] = DEFAULT_ALLOWED_COUNTRIES
    global_location_types: tuple[str, ...] = DEFAULT_GLOBAL_LOCATION_TYPES
    stack_config: Mapping[str, Any] = field(default_factory=dict)
    resources: tuple[ResourceView, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)  # the rule's own policy config
    phase: str = "preview"  # "preview" (computed values unknown) or "update" (the program's values resolved)
    unknown: Unknown | None = None  # how the rule being run handles a value still unknown (its declaration)

    def __post_init__(self) -> None:
        # Indexes, so stack rules stay linear in the number of resources.
        by_type: dict[str, list[ResourceView]] = {}
        for r in self.resources:
            by_type.setdefault(r.type, []).append(r)
        object.__setattr__(self, "_by_type", by_type)
        object.__setattr__(self, "_by_urn", {r.urn: r for r in self.resources})
        object.__setattr__(self, "_references", {})

    def still_unknown(self, what: str, urn: str | None = None) -> Iterator[Finding]:
        """The finding for a value this rule cannot judge because it is unknown, as the rule declared: a rule
        that fails closed reports it in every phase, one that fails after the update reports it only once the
        update phase has resolved everything it could (what is left is unknown for good: a lookup offline, an
        output no mock can give), and an advisory rule that ignores unknowns never does. `what` names the value
        (the input's path)."""
        handling = self.unknown or Unknown.FAILS_AFTER_UPDATE
        if handling is Unknown.FAILS or (handling is Unknown.FAILS_AFTER_UPDATE and self.phase == "update"):
            when = "after the update phase" if self.phase == "update" else "during preview"
            yield Finding(f"{what} is unknown {when}, so it cannot be verified; the rule fails closed", urn)

    def of_type(self, *types: str) -> list[ResourceView]:
        if len(types) == 1:
            return list(self._by_type.get(types[0], ()))
        return [r for r in self.resources if r.type in types]

    def by_urn(self, urn: str) -> ResourceView | None:
        return self._by_urn.get(urn)

    def referencing(self, target: ResourceView, prop: str, *types: str) -> list[ResourceView]:
        """Resources of `types` whose input `prop` points at `target` (by dependency or by value)."""
        key = (prop, types)
        index = self._references.get(key)
        if index is None:  # built once per (prop, types): stack rules stay linear in the stack's size
            index = {}
            for r in self.of_type(*types):
                names = set(r.property_dependencies.get(prop, ()))
                value = lookup(r.props, prop)
                if isinstance(value, str):
                    names.add(value)
                for name in names:
                    index.setdefault(name, []).append(r)
            self._references[key] = index
        found: list[ResourceView] = []
        for name in (target.urn, *target.identities):
            for r in index.get(name, ()):
                if all(r is not f for f in found):
                    found.append(r)
        return found

    def resolve(self, value: Any, prop_urns: Iterable[str] = (), types: Sequence[str] = ()) -> ResourceView | None:
        """The resource (of `types`, if given) a reference names: by one of its identities, else by the URNs
        the input's value came from."""
        def wanted(r: ResourceView) -> bool:
            return not types or r.type in types

        if isinstance(value, str):
            found = next((r for r in self.resources if value in r.identities and wanted(r)), None)
            if found is not None:
                return found
        for urn in prop_urns:
            found = self.by_urn(urn)
            if found is not None and wanted(found):
                return found
        return None


# ---------------------------------------------------------------------------------------------------------
# Rules


class Severity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class Enforcement(StrEnum):
    ADVISORY = "advisory"
    MANDATORY = "mandatory"
    DISABLED = "disabled"


class Unknown(StrEnum):
    """What a rule does with a value that is unknown (every rule declares it; `tests/policies/test_rule_catalog.py`
    runs each rule on an unknown value in both phases and holds it to its declaration)."""

    FAILS = "fails closed"  # in every phase, naming the value: where data goes (residency) and supply chain
    FAILS_AFTER_UPDATE = "fails closed after the update"  # preview: the update will know; after it: fails closed
    IGNORED = "ignored"  # advisory rules only: an unknown value is not reported


@dataclass(frozen=True)
class Framework:
    name: str  # e.g. "UAE PDPL (Federal Decree-Law 45/2021)"
    reference: str  # e.g. "Art. 22"


PDPL = "UAE PDPL (Federal Decree-Law 45/2021)"
HEALTH_DATA_LAW = "UAE Federal Law 2/2019 (ICT in health fields)"
ISO27001 = "ISO/IEC 27001:2022 Annex A"


def pdpl(ref: str) -> Framework:
    return Framework(PDPL, ref)


def health_data(ref: str = "Art. 13") -> Framework:
    return Framework(HEALTH_DATA_LAW, ref)


def iso27001(ref: str) -> Framework:
    return Framework(ISO27001, ref)


@dataclass(frozen=True)
class Finding:
    message: str
    urn: str | None = None  # stack rules name the resource; resource rules leave it to the adapter


ResourceCheck = Callable[[ResourceView, Context], Iterable[Finding]]
StackCheck = Callable[[Context], Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    id: str  # SAHAB-AWS-001
    name: str  # vendor-service-resource-rule, the Pulumi policy name
    title: str  # one line: what must be true
    description: str
    remediation: str
    severity: Severity
    frameworks: tuple[Framework, ...]
    enforcement: Enforcement
    residency: bool  # a rule about where data is (waived one resource at a time, takes the residency settings)
    scope: str  # "resource" or "stack"
    check: Callable[..., Iterable[Finding]]
    types: tuple[str, ...] = ()  # resource rules: the types checked; empty with `packages` set: any type
    packages: tuple[str, ...] = ()  # resource rules: every type of these packages (e.g. "aws")
    settings: Mapping[str, Any] = field(default_factory=dict)  # JSON schemas of the rule's own policy-config keys
    unknown: Unknown = Unknown.FAILS  # what it does with a value still unknown (declared by every rule)
    covers: tuple[str, ...] = ()  # stack rules: the resource types whose data they judge (open-world coverage)

    @property
    def fails_closed(self) -> bool:
        """Whether an unknown value is a finding during preview already."""
        return self.unknown is Unknown.FAILS

    def reports_unknown(self, phase: str) -> bool:
        """Whether an unknown value is a finding in `phase`."""
        return self.unknown is Unknown.FAILS or (self.unknown is Unknown.FAILS_AFTER_UPDATE and phase == "update")

    def applies_to(self, resource_type: str) -> bool:
        if resource_type in self.types:
            return True
        return bool(self.packages) and resource_type.split(":", 1)[0] in self.packages

    def run_resource(self, view: ResourceView, ctx: Context) -> list[Finding]:
        """Run a resource rule on one view; an unknown value read outside `lookup` is handled as the rule
        declares (`unknown`)."""
        assert self.scope == "resource"
        if not self.applies_to(view.type):
            return []
        return self._collect(lambda: self.check(view, ctx), ctx.phase)

    def run_stack(self, ctx: Context) -> list[Finding]:
        assert self.scope == "stack"
        return self._collect(lambda: self.check(ctx), ctx.phase)

    def _collect(self, produce: Callable[[], Iterable[Finding]], phase: str) -> list[Finding]:
        found: list[Finding] = []
        try:
            found.extend(produce())
        except Exception as exc:
            if not _is_unknown_error(exc):
                raise
            if self.reports_unknown(phase):
                when = "after the update phase" if phase == "update" else "during preview"
                found.append(Finding(f"a value it reads is unknown {when} ({getattr(exc, 'message', exc)}), so "
                                     "it cannot be verified; the rule fails closed"))
        return found


RULES: list[Rule] = []


def rule(*, id: str, name: str, title: str, description: str, remediation: str, severity: Severity,
         frameworks: Sequence[Framework], residency: bool, enforcement: Enforcement, unknown: Unknown,
         types: Sequence[str] = (), packages: Sequence[str] = (), scope: str = "resource",
         settings: Mapping[str, Any] | None = None, covers: Sequence[str] = ()):
    """Register the decorated function as a rule (`scope="resource"`: check(view, ctx); `"stack"`: check(ctx)).
    `unknown` is the rule's contract for a value it cannot see (see `Unknown`); a mandatory rule fails closed."""

    def register(check: Callable[..., Iterable[Finding]]) -> Rule:
        if enforcement is Enforcement.MANDATORY and unknown is Unknown.IGNORED:
            raise ValueError(f"{id}: a mandatory rule fails closed on a value still unknown after the update")
        made = Rule(id=id, name=name, title=title, description=description, remediation=remediation,
                    severity=severity, frameworks=tuple(frameworks), enforcement=enforcement, residency=residency,
                    scope=scope, check=check, types=tuple(types), packages=tuple(packages),
                    settings=dict(settings or {}), unknown=unknown, covers=tuple(covers))
        if any(r.id == id or r.name == name for r in RULES):
            raise ValueError(f"duplicate rule {id} / {name}")
        RULES.append(made)
        return made

    return register


def all_rules() -> list[Rule]:
    """Every rule of the pack, in catalog order (importing the rule modules registers them)."""
    from . import rules  # noqa: F401  (registers)

    return sorted(RULES, key=lambda r: r.id)


def rule_by(key: str) -> Rule | None:
    """A rule by its id or name (ids compare case-insensitively: `sahab-aws-011` is SAHAB-AWS-011)."""
    wanted = key.strip()
    return next((r for r in all_rules() if wanted == r.name or wanted.upper() == r.id), None)


def in_list(value: Any, allowed: Sequence[str]) -> bool:
    return isinstance(value, str) and value in allowed


def describe(value: Any) -> str:
    if value is UNKNOWN:
        return "unknown until the update runs"
    if value is MISSING:
        return "not set"
    return repr(value)


def findings(*messages: str | None) -> Iterator[Finding]:
    for m in messages:
        if m:
            yield Finding(m)

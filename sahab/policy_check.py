"""`sahab check` offline: the policy pack's own `Policy` objects, run over the resources of a program's two runs.

This does what the Pulumi engine does for an analyzer: every resource goes to every resource policy as
`ResourceValidationArgs` (its inputs behind the SDK's unknown-checking proxy, its provider with that provider's
settings), then the whole stack goes to every stack policy as `PolicyResource`s linked by parent and property
dependencies. Enforcement levels and policy settings come from a policy-pack config file in the format of
`pulumi preview --policy-pack-config`; waivers from `policies/waivers.yaml`.

The pack judges the preview (`pulumi preview --policy-pack`) and, where the preview left a value unknown, the
update run (what `pulumi up` would compute, `apply()` bodies included): a resource whose preview inputs (or its
provider's) hold an unknown is judged by its update-run inputs, and so is a resource only the update run
registers; stack policies are judged on the update run when the preview held any unknown. Every finding says
which run produced it (`phase`). A value still unknown in the update run (a lookup of an existing resource the
stack does not declare, a stack this check cannot read) cannot be judged: a rule that reads one and must fail
closed on it (by its own declaration; by default, at mandatory enforcement) fails, naming the value. A program
that previews but cannot make its update run offline (it parses a secret setting offline cannot decrypt) is
judged on its preview alone, as `pulumi preview --policy-pack` judges it, and the check says so.
"""

from __future__ import annotations

import datetime as dt
import functools
import gc
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sahab.engine.plan_types import PREVIEW, UNKNOWN, UPDATE, Plan, PlannedResource
from sahab.errors import ConfigError
from sahab.project import scrub

LEVELS = ("advisory", "mandatory", "remediate", "disabled")
SEVERITY_ORDER = ("critical", "high", "medium", "low")


@dataclass
class Violation:
    policy: str  # the policy (rule) name, e.g. aws-s3-bucket-sse-kms-cmk
    rule_id: str  # SAHAB-AWS-010
    enforcement: str  # mandatory | advisory
    severity: str
    urn: str | None
    type: str | None
    name: str | None
    message: str
    source: tuple[str, int] | None = None  # file and line where the program constructed the resource
    phase: str = PREVIEW  # the run that produced it: preview, or update (a value the preview left unknown)

    def contract(self) -> dict[str, Any]:
        return {"policy": self.policy, "id": self.rule_id, "enforcement": self.enforcement,
                "severity": self.severity, "urn": self.urn, "type": self.type, "name": self.name,
                "message": self.message, "phase": self.phase}


@dataclass
class Waived:
    policy: str
    id: str
    urn: str | None
    message: str
    approver: str
    expires: str
    reason: str
    phase: str = PREVIEW


@dataclass
class CheckResult:
    plan: Plan
    violations: list[Violation]
    waived: list[Waived]
    levels: dict[str, str]  # policy name -> effective enforcement level
    relaxations: list[str] = field(default_factory=list)  # what the stack's policy config relaxed

    @property
    def mandatory(self) -> list[Violation]:
        return [v for v in self.violations if v.enforcement == "mandatory"]

    @property
    def exit_code(self) -> int:
        return 1 if self.mandatory else 0

    def summary(self) -> dict[str, Any]:
        by_severity = {s: sum(1 for v in self.violations if v.severity == s) for s in SEVERITY_ORDER}
        return {"project": self.plan.project, "stack": self.plan.stack, "resources": len(self.plan.resources),
                "policies": sum(1 for level in self.levels.values() if level != "disabled"),
                "violations": len(self.violations), "mandatory": len(self.mandatory),
                "advisory": len(self.violations) - len(self.mandatory), "waived": len(self.waived),
                "by_severity": by_severity, "passed": self.exit_code == 0,
                # null when both runs were judged; else why the update run failed (judged on the preview alone)
                "update_failure": self.plan.update_failure}

    def contract(self) -> dict[str, Any]:
        from sahab.schema import versions

        return {**versions(), "violations": [v.contract() for v in self.violations],
                "summary": self.summary(), "waived": [w.__dict__ for w in self.waived],
                "relaxations": list(self.relaxations)}


# ---------------------------------------------------------------------------------------------------------
# Policy-pack config (the --policy-pack-config format)
#
# Layers, applied in order: the pack's defaults; the pack's own `policies/config/<stack>.json`; the operator's
# `--policy-config`; then the program folder's `<program>/policies/config/<stack>.json`, which comes with the
# code under review and so may only narrow: raise an enforcement level, shrink an allowed list, or turn a
# relaxation off. Anything else in it is an error naming the key.

PACK_CONFIG_DIR = Path(__file__).resolve().parent.parent / "policies" / "config"
LEVEL_RANK = {"disabled": 0, "advisory": 1, "mandatory": 2, "remediate": 2}
# Settings that list what is allowed: a narrowing config may only remove entries (and cannot start a list the
# trusted layers left empty: registries and destinations are allowed only by the trusted config).
ALLOW_LISTS = ("allowedRegions", "allowedCountries", "globalLocationTypes", "allowedRegistries",
               "allowedDestinations")
# Stacks whose policy config may accept provider-managed keys for data stores.
RELAXABLE_STACKS = ("dev", "smb")


@dataclass(frozen=True)
class ConfigLayer:
    doc: dict[str, Any]
    where: str  # the file, for error messages
    narrow_only: bool = False


def load_policy_config(path: Path | str) -> dict[str, Any]:
    from sahab.workloads.inputs import file_problem

    file = Path(path)
    problem = file_problem(file)
    if problem:
        raise ConfigError(str(file), f"{problem}; expected a policy config JSON file")
    try:
        text = file.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(file), f"not a readable UTF-8 JSON file ({exc.__class__.__name__})") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ConfigError(str(file), f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise ConfigError(str(file), "must be a JSON object: {\"all\": level, \"<policy>\": level or {...}}")
    return doc


def _by_id_or_name(policies: list) -> dict[str, Any]:
    """Policies by name and by rule id (`SAHAB-AWS-011`, any case): either names a policy in a config file."""
    from sahab.policies.pack import RULES_BY_NAME

    by_key: dict[str, Any] = {}
    for p in policies:
        by_key[p.name] = p
        rule = RULES_BY_NAME.get(p.name)
        if rule is not None:
            by_key[rule.id.upper()] = p
    return by_key


def canonical_key(key: str, by_key: dict[str, Any]) -> str:
    """The policy name a config key stands for (a rule id is accepted wherever a name is)."""
    policy = by_key.get(key) or by_key.get(key.strip().upper())
    return policy.name if policy is not None else key


def _check_layer(policies: list, layer: ConfigLayer) -> None:
    """Every key names a policy by name or id (or `all`), every level is a level, every setting is one the policy
    takes, with the type its schema gives."""
    by_key = _by_id_or_name(policies)
    seen: dict[str, str] = {}
    for key, value in layer.doc.items():
        where = f"{layer.where}: {key}"
        if key == "all":
            if value not in LEVELS:
                raise ConfigError(where, f"must be an enforcement level; allowed: {', '.join(LEVELS)}")
            continue
        policy = by_key.get(key) or by_key.get(key.strip().upper())
        if policy is None:
            raise ConfigError(where, "not a policy of the pack (by name or id); see `sahab check --list-policies`")
        if policy.name in seen:
            raise ConfigError(where, f"names {policy.name} again (also as {seen[policy.name]!r}); give it once")
        seen[policy.name] = key
        if isinstance(value, str):
            if value not in LEVELS:
                raise ConfigError(where, f"enforcement level {value!r}; allowed: {', '.join(LEVELS)}")
            continue
        if not isinstance(value, dict):
            raise ConfigError(where, "must be an enforcement level or an object of settings")
        schema = policy.config_schema.properties if policy.config_schema is not None else {}
        for setting, given in value.items():
            if setting == "enforcementLevel":
                if given not in LEVELS:
                    raise ConfigError(f"{where}.enforcementLevel", f"{given!r}; allowed: {', '.join(LEVELS)}")
                continue
            spec = schema.get(setting)
            if spec is None:
                allowed = ", ".join(["enforcementLevel", *schema])
                raise ConfigError(f"{where}.{setting}", f"not a setting of this policy; allowed: {allowed}")
            if spec.get("type") == "array" and not (
                    isinstance(given, list) and given and all(isinstance(x, str) and x for x in given)):
                raise ConfigError(f"{where}.{setting}", "must be a non-empty list of strings")
            if spec.get("type") == "boolean" and not isinstance(given, bool):
                raise ConfigError(f"{where}.{setting}", "must be true or false")


def _apply_level(name: str, current: str, wanted: str, layer: ConfigLayer, key: str) -> str:
    if layer.narrow_only and LEVEL_RANK[wanted] < LEVEL_RANK[current]:
        raise ConfigError(f"{layer.where}: {key}", f"would lower {name} from {current} to {wanted}; a program's own "
                                                   "policy config can only narrow (raise levels, shrink lists)")
    return "mandatory" if wanted == "remediate" else wanted


def _apply_setting(name: str, props: dict[str, Any], setting: str, given: Any, layer: ConfigLayer) -> None:
    where = f"{layer.where}: {name}.{setting}"
    if layer.narrow_only:
        current = props.get(setting)
        if setting in ALLOW_LISTS:
            current = list(current) if isinstance(current, list) else []
            wider = [x for x in given if x not in current]
            if wider:
                raise ConfigError(where, f"would widen the allowed set with {', '.join(wider)}; a program's own "
                                         f"policy config can only narrow it (now: {', '.join(current) or 'empty'})")
        elif isinstance(given, bool) and given and not current:
            raise ConfigError(where, "would relax the policy; a program's own policy config can only narrow")
    props[setting] = list(given) if isinstance(given, list) else given


def _levels_and_settings(policies: list, layers: list[ConfigLayer],
                         stack: str | None = None) -> tuple[dict[str, str], dict[str, dict]]:
    levels: dict[str, str] = {}
    settings: dict[str, dict] = {}
    for p in policies:
        levels[p.name] = p.enforcement_level.value if p.enforcement_level else "advisory"
        settings[p.name] = {k: v["default"] for k, v in p.config_schema.properties.items() if "default" in v} \
            if p.config_schema is not None else {}
    by_key = _by_id_or_name(policies)
    for layer in layers:
        _check_layer(policies, layer)
        layer = ConfigLayer({canonical_key(k, by_key) if k != "all" else k: v for k, v in layer.doc.items()},
                            layer.where, layer.narrow_only)
        if "all" in layer.doc:
            for name in levels:
                levels[name] = _apply_level(name, levels[name], layer.doc["all"], layer, "all")
        for name, value in layer.doc.items():
            if name == "all":
                continue
            wanted = value if isinstance(value, str) else value.get("enforcementLevel")
            if wanted is not None:
                levels[name] = _apply_level(name, levels[name], wanted, layer, name)
            if isinstance(value, dict):
                for setting, given in value.items():
                    if setting != "enforcementLevel":
                        _apply_setting(name, settings[name], setting, given, layer)
    for name, props in settings.items():
        if props.get("allowProviderManagedKeys") and stack is not None and stack not in RELAXABLE_STACKS:
            raise ConfigError(f"{name}.allowProviderManagedKeys", f"provider-managed keys may be accepted only for "
                                                                  f"the {' and '.join(RELAXABLE_STACKS)} stacks, "
                                                                  f"not {stack!r}")
    return levels, settings


def policy_config_layers(program_dir: Path, stack: str, operator_config: Path | str | None) -> list[ConfigLayer]:
    """The config layers `sahab check` applies for a program and stack (see above)."""
    layers = []
    pack_file = PACK_CONFIG_DIR / f"{stack}.json"
    if pack_file.is_file():
        layers.append(ConfigLayer(load_policy_config(pack_file), str(pack_file)))
    if operator_config is not None:
        layers.append(ConfigLayer(load_policy_config(operator_config), str(operator_config)))
    program_file = Path(program_dir) / "policies" / "config" / f"{stack}.json"
    if program_file.is_file() and program_file.resolve() != pack_file.resolve():
        layers.append(ConfigLayer(load_policy_config(program_file), str(program_file), narrow_only=True))
    return layers


def relaxations(settings: dict[str, dict]) -> list[str]:
    """What the stack's policy config relaxed, for the report."""
    return [f"{name}: provider-managed keys accepted for data stores (policy config allowProviderManagedKeys)"
            for name, props in sorted(settings.items()) if props.get("allowProviderManagedKeys")]


# ---------------------------------------------------------------------------------------------------------
# Running the pack over a plan


class _Reads:
    """Which unknown values each rule read, by the resource they belong to (`owner`)."""

    def __init__(self):
        self.current: tuple[str, str | None] | None = None  # (policy, the resource being validated, or None)
        self.found: dict[tuple[str, str | None], list[str]] = {}  # (policy, resource URN) -> paths read unknown

    def unknown(self, owner: str, path: list[str]) -> None:
        if self.current is None:
            return
        policy, resource = self.current
        shown = ".".join(path)
        paths = self.found.setdefault((policy, resource or owner), [])
        if shown not in paths:
            paths.append(shown)


def _tracked(value: Any, reads: _Reads, owner: str, path: list[str]) -> Any:
    """The SDK's unknown-checking proxy (same classes by name, which rules recognise), noting unknown reads."""
    dict_proxy, list_proxy = _tracking_proxies()

    def wrap(item: Any, at: list[str]) -> Any:
        if isinstance(item, list):
            return list_proxy([wrap(e, [*at, str(i)]) for i, e in enumerate(item)], at, reads, owner)
        if isinstance(item, dict):
            return dict_proxy({k: wrap(v, [*at, str(k)]) for k, v in item.items()}, at, reads, owner)
        return item

    return wrap(value, path)


@functools.cache
def _tracking_proxies() -> tuple[type, type]:
    """The two proxy classes, made once: a class made per resource would grow the subclass lists of the ABCs
    (Mapping, Sequence) the rules test against, and every isinstance() walks them (quadratic in resources)."""
    from pulumi_policy import proxy

    def noting(base: type) -> type:
        class Tracking(base):
            def __init__(self, target: Any, props_acc: list[str], reads: _Reads, owner: str):
                super().__init__(target, props_acc)
                self._reads, self._owner = reads, owner

            def __getitem__(self, key):
                try:
                    return super().__getitem__(key)
                except proxy.UnknownValueError as exc:
                    self._reads.unknown(self._owner, exc.props)
                    raise

        Tracking.__name__ = Tracking.__qualname__ = base.__name__
        return Tracking

    return noting(proxy._DictProxy), noting(proxy._ListProxy)


@functools.cache
def _own_name_keys(type_: str) -> tuple[str, ...]:
    """The inputs a resource names itself by that its provider fills in when the program leaves them out (an S3
    bucket's `bucket`, an Azure resource's own name parameter, the egress model's `name`): part of the state a
    stack policy sees, and what a destination naming the resource by its plain name matches."""
    from sahab.policies.egress import own_name_input

    own = own_name_input(type_)
    return tuple(k for k in ("bucket" if type_ in _S3_BUCKETS else None, own) if k)


_S3_BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")


def _own_arn_keys(type_: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    """The outputs holding the resource's own ARN under its type's name (a DMS endpoint's `endpointArn`): a task
    names its endpoint by that, not by `arn`."""
    from sahab.policies.egress import own_arn_outputs

    return tuple(own_arn_outputs(keys, type_))


def _policy_objects(resources: list[PlannedResource], reads: _Reads):
    """The SDK argument objects the engine would send, built once per resource."""
    from pulumi_policy import PolicyCustomTimeouts, PolicyProviderResource, PolicyResource, PolicyResourceOptions

    by_urn = {r.urn: r for r in resources}
    providers: dict[str, Any] = {}

    def provider_of(res: PlannedResource):
        if not res.provider:
            return None
        if res.provider not in providers:
            prov = by_urn.get(res.provider)
            props = prov.inputs if prov else {}
            name = prov.name if prov else res.provider.rsplit("::", 1)[-1]
            ptype = prov.type if prov else res.provider.split("::")[2]
            providers[res.provider] = PolicyProviderResource(ptype, _tracked(props, reads, res.provider, []),
                                                             res.provider, name)
        return providers[res.provider]

    items = []
    stack_resources: dict[str, Any] = {}
    for res in resources:
        opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], res.parent)
        props = _tracked(res.inputs, reads, res.urn, [])
        provider = provider_of(res)
        items.append((res, props, opts, provider))
        # Stack policies see the resource's state; identities (id, ARN) come from what the engine recorded.
        state = dict(res.inputs)
        for key in ("id", "arn", *_own_arn_keys(res.type, tuple(res.outputs))):
            value = res.id if key == "id" else res.outputs.get(key)
            if isinstance(value, str) and key not in state:
                state[key] = value
        for key in _own_name_keys(res.type):  # the name the provider gave it (an auto-name): known in preview
            value = res.outputs.get(key)
            if value is None and res.type.startswith("azure-native:"):
                value = res.outputs.get("name")  # azure-native returns its own-name parameter as `name`
            if isinstance(value, str) and value and value != UNKNOWN and key not in state:
                state[key] = value
        stack_resources[res.urn] = PolicyResource(res.type, _tracked(state, reads, res.urn, []), res.urn, res.name,
                                                  opts, provider, None, [], {})
    for res in resources:
        pr = stack_resources[res.urn]
        pr.parent = stack_resources.get(res.parent) if res.parent else None
        pr.dependencies = [stack_resources[d] for d in res.dependencies if d in stack_resources]
        pr.property_dependencies = {k: [stack_resources[d] for d in v if d in stack_resources]
                                    for k, v in res.property_dependencies.items()}
    return items, list(stack_resources.values())


def preload() -> None:
    """Import the pack (and the policy SDK) in the background while the program runs in its own process: the
    two take a large part of a check's time and need not wait for each other."""
    import importlib
    import threading

    threading.Thread(target=importlib.import_module, args=("sahab.policies.pack",), daemon=True).start()


@dataclass
class _Verdict:
    """What the pack found in one run: findings and waived findings by (policy, resource URN or None)."""

    violations: dict[tuple[str, str | None], list[Violation]] = field(default_factory=dict)
    waived: dict[tuple[str, str | None], list[Waived]] = field(default_factory=dict)
    reads: _Reads = field(default_factory=_Reads)


def _judge(plan: Plan, levels: dict[str, str], settings: dict[str, dict], waivers: list, today: dt.date,
           wanted: Callable[[Any, PlannedResource | None], bool]) -> _Verdict:
    """Run every policy the config enables over `plan`, where `wanted(policy, resource)` says so (resource None:
    a stack policy)."""
    from pulumi_policy import ResourceValidationArgs, ResourceValidationPolicy, StackValidationArgs

    from sahab.policies import pack

    verdict = _Verdict()
    resources = [r for r in plan.resources if r.type != "pulumi:pulumi:Stack"]
    by_urn = {r.urn: r for r in resources}
    session = pack.Session(stack_config={k: pack.parse_config_value(v) for k, v in plan.config.items()},
                           waivers=waivers, today=today, phase="preview" if plan.preview else "update")
    token = pack.open_session(session)
    gc.freeze()  # the plan's objects outlive the check: keep the collector from rescanning them for each policy
    try:
        items, stack_resources = _policy_objects(resources, verdict.reads)
        for policy in pack.POLICIES:
            level = levels[policy.name]
            if level == "disabled":
                continue
            rule = pack.RULES_BY_NAME[policy.name]

            def report(message: str, urn: str | None = None, *, _rule=rule, _level=level) -> None:
                target = by_urn.get(urn or "")
                verdict.violations.setdefault((_rule.name, urn), []).append(Violation(
                    policy=_rule.name, rule_id=_rule.id, enforcement=_level, severity=_rule.severity.value,
                    urn=target.urn if target else urn, type=target.type if target else None,
                    name=target.name if target else None, message=_clean(message, _rule.id),
                    source=target.source if target else None, phase=plan.phase))

            if isinstance(policy, ResourceValidationPolicy):
                for res, props, opts, provider in items:
                    if not rule.applies_to(res.type) or not wanted(policy, res):
                        continue
                    verdict.reads.current = (policy.name, res.urn)
                    args = ResourceValidationArgs(res.type, props, res.urn, res.name, opts, provider,
                                                  settings[policy.name])
                    policy.validate(args, lambda m, u=None, _urn=res.urn: report(m, u or _urn))
            elif wanted(policy, None):
                verdict.reads.current = (policy.name, None)
                policy.validate(StackValidationArgs(stack_resources, settings[policy.name]), report)
            verdict.reads.current = None
    finally:
        gc.unfreeze()
        pack.close_session(token)
    for name, urn, message, w in session.waived:
        verdict.waived.setdefault((name, urn), []).append(
            Waived(name, pack.RULES_BY_NAME[name].id, urn, _clean(message, ""), w.approver, w.expires.isoformat(),
                   w.reason, plan.phase))
    return verdict


def _holds_unknown(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_unknown(v) for v in value)
    return isinstance(value, str) and value in _UNKNOWNS


def _unknown_sentinels() -> frozenset[str]:
    from sahab.policies.core import UNKNOWN_SENTINELS

    return frozenset({UNKNOWN, *UNKNOWN_SENTINELS})


_UNKNOWNS: frozenset[str] = frozenset()


def fails_closed_when_unknown(rule: Any, level: str) -> bool:
    """Whether `rule` fails on a value it reads that is still unknown in the update run: as the rule declares
    (`Rule.unknown`: every handling but "ignored" fails closed once the update has run), else when its
    enforcement is mandatory."""
    declared = getattr(rule, "unknown", None)
    if declared is not None:
        return str(getattr(declared, "value", declared)) != "ignored"
    return level == "mandatory"


def stack_waivers(stack: str, layers: list[ConfigLayer], waivers_path: Path | str | None,
                  today: dt.date | None = None) -> list:
    """The waivers that hold for `stack` under these config layers; a bad file is a ConfigError naming it."""
    from sahab.policies import pack
    from sahab.policies.waivers import WaiverError, load_waivers

    levels, _ = _levels_and_settings(pack.POLICIES, layers, stack)
    try:  # a rule this check makes mandatory is waived as a mandatory one: listed resources, 90 days at most
        return load_waivers(waivers_path, today=today or dt.datetime.now(dt.UTC).date(),
                            mandatory={stack: {n for n, level in levels.items() if level == "mandatory"}})
    except WaiverError as exc:
        raise ConfigError(exc.path, exc.message) from None


def check_plan(plan: Plan, policy_config: dict[str, Any] | list[ConfigLayer] | None = None,
               config_where: str = "policy config", waivers_path: Path | str | None = None,
               today: dt.date | None = None, update: Plan | None = None, waivers: list | None = None) -> CheckResult:
    """Run the pack over a preview (`plan`) and, where it left values unknown, over the update run (`update`).
    `policy_config` is one trusted config document (as `--policy-config`) or the layers `policy_config_layers`
    returns. `waivers` are those `stack_waivers` already loaded (the file is then not read again); without them
    the waivers come from `waivers_path` (None: the pack's own file)."""
    global _UNKNOWNS
    from sahab.policies import pack
    from sahab.policies.waivers import decide

    _UNKNOWNS = _UNKNOWNS or _unknown_sentinels()
    today = today or dt.datetime.now(dt.UTC).date()
    layers = policy_config if isinstance(policy_config, list) else \
        [ConfigLayer(policy_config, config_where)] if policy_config else []
    levels, settings = _levels_and_settings(pack.POLICIES, layers, plan.stack)
    if waivers is None:
        waivers = stack_waivers(plan.stack, layers, waivers_path, today)

    def open_in_preview(res: PlannedResource) -> bool:
        provider = previewed.get(res.provider or "")
        return _holds_unknown(res.inputs) or (provider is not None and _holds_unknown(provider.inputs))

    previewed = {r.urn: r for r in plan.resources}
    first = _judge(plan, levels, settings, waivers, today, lambda _p, _r: True)
    violations = {k: list(v) for k, v in first.violations.items()}
    waived = {k: list(v) for k, v in first.waived.items()}
    unknowns: dict[tuple[str, str | None], list[str]] = {}  # values still unknown after the update run
    by_urn = previewed
    if update is not None:
        reopened = {r.urn for r in plan.resources if open_in_preview(r)} | \
            {r.urn for r in update.resources if r.urn not in previewed}
        stack_open = bool(reopened)

        def wanted(_policy: Any, res: PlannedResource | None) -> bool:
            return stack_open if res is None else res.urn in reopened

        second = _judge(update, levels, settings, waivers, today, wanted)
        stack_policies = {r.name for r in pack.RULES_BY_NAME.values() if r.scope == "stack"}
        for found, taken in ((violations, second.violations), (waived, second.waived)):
            for key in list(found):
                policy, urn = key
                if (policy in stack_policies and stack_open) or (policy not in stack_policies and urn in reopened):
                    del found[key]
            found.update({k: v for k, v in taken.items() if k[0] in stack_policies or k[1] in reopened})
        by_urn = {r.urn: r for r in update.resources}
        unknowns = second.reads.found
    for (policy, urn), paths in unknowns.items():
        rule = pack.RULES_BY_NAME[policy]
        if violations.get((policy, urn)) or waived.get((policy, urn)):
            continue
        if not fails_closed_when_unknown(rule, levels[policy]):
            continue
        target = by_urn.get(urn or "")
        message = (f"{', '.join(paths)} is unknown even in the update run (a lookup of an existing resource the stack "
                   f"does not declare in sahab:existing, or a stack this check cannot read): the rule cannot judge "
                   f"it and fails closed")
        active, _ = decide(waivers, rule.id, rule.name, urn, today)
        if active is not None:
            waived.setdefault((policy, urn), []).append(Waived(policy, rule.id, urn, message, active.approver,
                                                               active.expires.isoformat(), active.reason, UPDATE))
            continue
        violations[(policy, urn)] = [Violation(
            policy=policy, rule_id=rule.id, enforcement=levels[policy], severity=rule.severity.value, urn=urn,
            type=target.type if target else None, name=target.name if target else None, message=message,
            source=target.source if target else None, phase=UPDATE)]
    found_all = [v for group in violations.values() for v in group]
    order = {s: i for i, s in enumerate(SEVERITY_ORDER)}
    found_all.sort(key=lambda v: (v.enforcement != "mandatory", order.get(v.severity, 9), v.rule_id, v.urn or "",
                                  v.message))
    # Judged on the values themselves; reported with the text of every secret setting replaced (`scrub`).
    secrets = plan.secret_texts | (update.secret_texts if update is not None else frozenset())
    for v in found_all:
        v.urn, v.name, v.message = scrub(v.urn, secrets), scrub(v.name, secrets), scrub(v.message, secrets)
    for group in waived.values():
        for w in group:
            w.urn, w.message = scrub(w.urn, secrets), scrub(w.message, secrets)
    return CheckResult(plan=plan, violations=found_all, waived=[w for group in waived.values() for w in group],
                       levels=levels, relaxations=relaxations(settings))


def _clean(message: str, rule_id: str) -> str:
    """The finding itself: the pack's message carries the rule id and the remediation for the Pulumi CLI."""
    text = message.split("\nRemediation:", 1)[0]
    return text.removeprefix(f"[{rule_id}] ") if rule_id else text

"""Reviewed, expiring exceptions to a rule for named resources (policies/waivers.yaml).

Each waiver names a rule (its id or name), the resources it covers (a URN, a list of URNs, or for an advisory rule
a glob over URNs such as `urn:pulumi:prod::sahab::*::legacy-*`), why, who approved it and the last day it holds.
After that day the waiver no longer waives: the violation is reported again, saying which waiver expired.

Integrity: a waiver names a rule of the pack, a concrete resource, an owner and a reason. A glob keeps the URN's
stack and project literal and names the resource with at least three literal characters (`*t*` names nothing).
A waiver of a mandatory rule (mandatory by the pack, or by the pack's policy config for a stack the waiver can
reach, `policies/config/<stack>.json`) lists its resources one by one, never by a pattern, and holds for at most
`MAX_MANDATORY_DAYS` from the day of the check: each such exception is reviewed again within 90 days.

A concrete URN matches the resource with the same stack, project, type and name whose chain of parent types
agrees with the waiver's (one ends the other): `sahab plan` writes a URN with the nearest parent type, Pulumi's
engine with all of them, and a waiver copied from either covers the same resource."""

from __future__ import annotations

import datetime as dt
import fnmatch
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PATH = Path(__file__).resolve().parent / "waivers.yaml"
CONFIG_DIR = Path(__file__).resolve().parent / "config"  # the pack's own policy config per stack
FIELDS = ("policy", "resource", "reason", "owner", "expires")
OPTIONAL_FIELDS = ("granted",)  # the day the exception was approved, for the evidence bundle's waiver register
OWNER_ALIASES = ("owner", "approver")  # `approver` is what earlier waivers files call the owner
MAX_MANDATORY_DAYS = 90
MAX_RESIDENCY_DAYS = MAX_MANDATORY_DAYS  # the name earlier versions used
GLOB_CHARACTERS = frozenset("*?[")
MIN_LITERAL_NAME = 3  # literal characters a glob's resource name keeps


class WaiverError(ValueError):
    """An invalid waivers file; `path` says where (file and entry)."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")


@dataclass(frozen=True)
class Waiver:
    policy: str  # rule id (SAHAB-AWS-010) or name (aws-s3-bucket-sse-kms-cmk)
    resource: str  # URN or URN glob
    reason: str
    approver: str  # the owner: who answers for the exception
    expires: dt.date  # last day the waiver holds
    granted: dt.date | None = None  # the day it was approved, when the file records it

    def covers(self, rule_id: str, rule_name: str, urn: str | None) -> bool:
        if self.policy not in (rule_id, rule_name) or not urn:
            return False
        if GLOB_CHARACTERS & set(self.resource):
            return fnmatch.fnmatchcase(urn, self.resource)
        return self.resource == urn or same_resource(self.resource, urn)

    def expired(self, today: dt.date) -> bool:
        return today > self.expires

    def describe(self) -> str:
        return f"waiver by {self.approver} until {self.expires.isoformat()}: {self.reason}"


def _urn(urn: str) -> tuple[str, str, list[str], str] | None:
    """(stack, project, parent types + own type, name) of a Pulumi URN; None for anything else (an ARN)."""
    parts = urn.split("::")
    if len(parts) != 4 or not parts[0].startswith("urn:pulumi:"):
        return None
    return parts[0].removeprefix("urn:pulumi:"), parts[1], parts[2].split("$"), parts[3]


def same_resource(waived: str, urn: str) -> bool:
    """One resource: stack, project, own type and name equal, and one chain of parent types ends the other."""
    a, b = _urn(waived), _urn(urn)
    if a is None or b is None or (a[0], a[1], a[3]) != (b[0], b[1], b[3]):
        return False
    shorter, longer = sorted((a[2], b[2]), key=len)
    return longer[len(longer) - len(shorter):] == shorter


def _levels(doc: object) -> set[str]:
    """Rule names a --policy-pack-config document makes mandatory (`remediate` blocks too)."""
    if not isinstance(doc, dict):
        return set()
    from .core import all_rules

    blocking = ("mandatory", "remediate")
    names = {r.name for r in all_rules()} if doc.get("all") in blocking else set()
    for name, value in doc.items():
        level = value.get("enforcementLevel") if isinstance(value, dict) else value
        if name != "all" and level in blocking:
            names.add(name)
    return names


def pack_mandatory(config_dir: Path = CONFIG_DIR) -> dict[str, set[str]]:
    """Per stack, the rules the pack's own policy config makes mandatory (unreadable files count for nothing
    here: `sahab check` reports them)."""
    found: dict[str, set[str]] = {}
    for file in sorted(config_dir.glob("*.json")) if config_dir.is_dir() else ():
        try:
            found[file.stem] = _levels(json.loads(file.read_text()))
        except (OSError, ValueError):
            continue
    return found


def load_waivers(path: Path | str | None = None, today: dt.date | None = None,
                 mandatory: Mapping[str, Iterable[str]] | None = None) -> list[Waiver]:
    """Parse and validate a waivers file; a missing default file means no waivers. `today` (default: the
    current UTC date) bounds how long a mandatory rule's waiver may hold. `mandatory` adds, per stack, rules that
    are mandatory beyond the pack's defaults and its own config (e.g. the operator's --policy-config)."""
    import yaml

    file = Path(path) if path else DEFAULT_PATH
    if not file.is_file():
        if path:  # a library caller's path: the CLI's own options refuse a folder before this
            raise WaiverError(str(file), "is a directory" if file.is_dir() else "no such file")
        return []
    try:
        text = file.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WaiverError(str(file), f"not a readable UTF-8 YAML file ({exc.__class__.__name__})") from None
    if "\x00" in text:
        raise WaiverError(str(file), "not a YAML text file (it holds NUL bytes)")
    try:
        doc = yaml.load(text, Loader=_loader()) or {}
    except yaml.YAMLError as exc:
        raise WaiverError(str(file), f"not valid YAML: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("waivers", []), list):
        raise WaiverError(str(file), "must be a mapping with a `waivers` list")
    today = today or dt.datetime.now(dt.UTC).date()
    by_stack = pack_mandatory()
    for stack, names in (mandatory or {}).items():
        by_stack[stack] = by_stack.get(stack, set()) | set(names)
    return [w for i, entry in enumerate(doc.get("waivers") or [])
            for w in _waivers(entry, f"{file}: waivers[{i}]", today, by_stack)]


def _loader():
    """yaml.SafeLoader keeping a timestamp (`expires: 2026-12-31`) as the text written: _date parses it itself,
    so an impossible date (2020-13-45) is a WaiverError naming the key, not a ValueError from PyYAML."""
    import yaml

    class WaiverLoader(yaml.SafeLoader):
        pass

    WaiverLoader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))
    return WaiverLoader


def _mandatory_for(rule, resources: list[str], by_stack: Mapping[str, set[str]]) -> str | None:
    """Why the rule is mandatory for these resources ('the pack', 'prod's policy config'), or None."""
    from .core import Enforcement

    if rule.enforcement is Enforcement.MANDATORY:
        return "the pack"
    for resource in resources:
        parsed = _urn(resource)
        stacks = [s for s in by_stack if parsed is None or fnmatch.fnmatchcase(s, parsed[0])]
        for stack in stacks:
            if rule.name in by_stack[stack]:
                return f"{stack}'s policy config"
    return None


def _check_resource(resource: str, where: str) -> None:
    """A concrete resource: a URN or ARN whose own name is not a pattern alone; a glob keeps the URN's stack and
    project literal and at least MIN_LITERAL_NAME literal characters of the name."""
    name = re.split(r"::|[:/]", resource)[-1]  # the resource's own name: the last part of its URN or ARN
    literal = max(re.split(r"[*?\[\]!]", name), key=len)
    if not name.strip("*?[]!"):
        raise WaiverError(where, f"{resource!r} names no concrete resource; give its URN or ARN")
    if not GLOB_CHARACTERS & set(resource):
        return
    parsed = _urn(resource)
    if (parsed is not None and (GLOB_CHARACTERS & set(parsed[0] + parsed[1]))) \
            or (parsed is None and not resource.startswith("arn:")) or len(literal) < MIN_LITERAL_NAME:
        raise WaiverError(where, f"{resource!r} is too wide a pattern; allowed: a URN or ARN, a glob only with its "
                                 f"stack and project literal and at least {MIN_LITERAL_NAME} literal characters of "
                                 "the resource name")


def _waivers(entry: object, where: str, today: dt.date, by_stack: Mapping[str, set[str]]) -> list[Waiver]:
    """One entry of the file: a waiver per resource it lists."""
    from .core import rule_by

    if not isinstance(entry, dict):
        raise WaiverError(where, "must be a mapping")
    allowed = (*FIELDS, *OPTIONAL_FIELDS, "approver")
    unknown = set(entry) - set(allowed)
    if unknown:
        raise WaiverError(f"{where}.{sorted(unknown, key=str)[0]}",
                          f"unknown key; allowed: {', '.join((*FIELDS, *OPTIONAL_FIELDS))}")
    owner = next((entry[k] for k in OWNER_ALIASES if entry.get(k) not in (None, "")), None)
    for key in FIELDS:
        value = owner if key == "owner" else entry.get(key)
        if value in (None, "", []) or (isinstance(value, str) and not value.strip()):
            raise WaiverError(f"{where}.{key}", "required")
    rule = rule_by(str(entry["policy"]))
    if rule is None:
        raise WaiverError(f"{where}.policy", f"{entry['policy']!r} is not a rule of the pack; see "
                                             "`sahab check --list-policies`")
    listed = entry["resource"] if isinstance(entry["resource"], list) else [entry["resource"]]
    resources = [str(r).strip() for r in listed]
    for j, resource in enumerate(resources):
        _check_resource(resource, f"{where}.resource" + (f"[{j}]" if isinstance(entry["resource"], list) else ""))
    expires = _date(entry["expires"], f"{where}.expires")
    granted = _date(entry["granted"], f"{where}.granted") if entry.get("granted") is not None else None
    if granted is not None and granted > expires:
        raise WaiverError(f"{where}.granted", f"{granted.isoformat()} is after the waiver expires "
                                              f"({expires.isoformat()})")
    because = _mandatory_for(rule, resources, by_stack)
    if because:
        kind = "mandatory residency rule" if rule.residency else "mandatory rule"
        for j, resource in enumerate(resources):
            if GLOB_CHARACTERS & set(resource):
                raise WaiverError(f"{where}.resource" + (f"[{j}]" if isinstance(entry["resource"], list) else ""),
                                  f"{resource!r} is a pattern; {rule.name} ({rule.id}) is a {kind} ({because}) "
                                  "and is waived one resource at a time")
        if (expires - today).days > MAX_MANDATORY_DAYS:
            raise WaiverError(f"{where}.expires", f"{expires.isoformat()} is more than {MAX_MANDATORY_DAYS} days "
                                                  f"after {today.isoformat()}; {rule.name} ({rule.id}) is a {kind} "
                                                  f"({because}), waived for {MAX_MANDATORY_DAYS} days at most")
    # The rule by its name, whichever of its id (any case) or name the entry gives: both are the same rule.
    return [Waiver(rule.name, resource, str(entry["reason"]).strip(), str(owner).strip(), expires, granted)
            for resource in resources]


def _date(value: object, where: str) -> dt.date:
    if isinstance(value, str):
        try:
            value = dt.date.fromisoformat(value)
        except ValueError:
            raise WaiverError(where, f"{value!r} is not a date like 2026-12-31") from None
    if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
        raise WaiverError(where, "must be a date like 2026-12-31")
    return value


def decide(waivers: list[Waiver], rule_id: str, rule_name: str, urn: str | None,
           today: dt.date) -> tuple[Waiver | None, Waiver | None]:
    """(the active waiver covering this violation, else None; an expired one that covers it, else None)."""
    covering = [w for w in waivers if w.covers(rule_id, rule_name, urn)]
    active = next((w for w in covering if not w.expired(today)), None)
    expired = next((w for w in covering if w.expired(today)), None)
    return active, expired

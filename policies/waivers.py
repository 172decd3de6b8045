"""Reviewed, expiring exceptions to a rule for named resources (policies/waivers.yaml).

Each waiver names a rule (its id or name), the resources it covers (a URN, or a glob over URNs such as
`urn:pulumi:prod::sahab::*::legacy-logs`), why, who approved it and the last day it holds. After that day the
waiver no longer waives: the violation is reported again, saying which waiver expired.

Integrity: a waiver names a rule of the pack, a concrete resource, an owner and a reason. A mandatory residency
rule (where the data is) is never waived by a glob or for more than `MAX_RESIDENCY_DAYS` from the day of the
check: each such exception is one resource, reviewed again within 90 days."""

from __future__ import annotations

import datetime as dt
import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PATH = Path(__file__).resolve().parent / "waivers.yaml"
FIELDS = ("policy", "resource", "reason", "owner", "expires")
OPTIONAL_FIELDS = ("granted",)  # the day the exception was approved, for the evidence bundle's waiver register
OWNER_ALIASES = ("owner", "approver")  # `approver` is what earlier waivers files call the owner
MAX_RESIDENCY_DAYS = 90
GLOB_CHARACTERS = frozenset("*?[")


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
        return self.resource == urn or fnmatch.fnmatchcase(urn, self.resource)

    def expired(self, today: dt.date) -> bool:
        return today > self.expires

    def describe(self) -> str:
        return f"waiver by {self.approver} until {self.expires.isoformat()}: {self.reason}"


def load_waivers(path: Path | str | None = None, today: dt.date | None = None) -> list[Waiver]:
    """Parse and validate a waivers file; a missing default file means no waivers. `today` (default: the
    current UTC date) bounds how long a residency waiver may hold."""
    import yaml

    file = Path(path) if path else DEFAULT_PATH
    if not file.is_file():
        if path:
            raise WaiverError(str(file), "no such file")
        return []
    try:
        text = file.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WaiverError(str(file), f"not a readable UTF-8 YAML file ({exc.__class__.__name__})") from None
    if "\x00" in text:
        raise WaiverError(str(file), "not a YAML text file (it holds NUL bytes)")
    try:
        doc = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise WaiverError(str(file), f"not valid YAML: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("waivers", []), list):
        raise WaiverError(str(file), "must be a mapping with a `waivers` list")
    today = today or dt.datetime.now(dt.UTC).date()
    return [_waiver(entry, f"{file}: waivers[{i}]", today) for i, entry in enumerate(doc.get("waivers") or [])]


def _waiver(entry: object, where: str, today: dt.date) -> Waiver:
    from policies.core import Enforcement, rule_by

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
        if value in (None, "") or (isinstance(value, str) and not value.strip()):
            raise WaiverError(f"{where}.{key}", "required")
    rule = rule_by(str(entry["policy"]))
    if rule is None:
        raise WaiverError(f"{where}.policy", f"{entry['policy']!r} is not a rule of the pack; see "
                                             "`sahab check --list-policies`")
    resource = str(entry["resource"]).strip()
    name = re.split(r"::|[:/]", resource)[-1]  # the resource's own name: the last part of its URN or ARN
    if not name.strip("*?[]!"):
        raise WaiverError(f"{where}.resource", f"{resource!r} names no concrete resource; give its URN or ARN")
    expires = _date(entry["expires"], f"{where}.expires")
    granted = _date(entry["granted"], f"{where}.granted") if entry.get("granted") is not None else None
    if granted is not None and granted > expires:
        raise WaiverError(f"{where}.granted", f"{granted.isoformat()} is after the waiver expires "
                                              f"({expires.isoformat()})")
    if rule.residency and rule.enforcement is Enforcement.MANDATORY:
        if GLOB_CHARACTERS & set(resource):
            raise WaiverError(f"{where}.resource", f"{resource!r} is a pattern; {rule.name} ({rule.id}) is a "
                                                   "mandatory residency rule and is waived one resource at a time")
        if (expires - today).days > MAX_RESIDENCY_DAYS:
            raise WaiverError(f"{where}.expires", f"{expires.isoformat()} is more than {MAX_RESIDENCY_DAYS} days "
                                                  f"after {today.isoformat()}; {rule.name} ({rule.id}) is a "
                                                  f"mandatory residency rule, waived for {MAX_RESIDENCY_DAYS} "
                                                  "days at most")
    # The rule by its name, whichever of its id (any case) or name the entry gives: both are the same rule.
    return Waiver(rule.name, resource, str(entry["reason"]).strip(), str(owner).strip(), expires, granted)


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

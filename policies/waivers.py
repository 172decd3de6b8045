"""Reviewed, expiring exceptions to a rule for named resources (policies/waivers.yaml).

Each waiver names a rule (its id or name), the resources it covers (a URN, or a glob over URNs such as
`urn:pulumi:prod::sahab::*::legacy-logs`), why, who approved it and the last day it holds. After that day the
waiver no longer waives: the violation is reported again, saying which waiver expired."""

from __future__ import annotations

import datetime as dt
import fnmatch
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PATH = Path(__file__).resolve().parent / "waivers.yaml"
FIELDS = ("policy", "resource", "reason", "approver", "expires")


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
    approver: str
    expires: dt.date  # last day the waiver holds

    def covers(self, rule_id: str, rule_name: str, urn: str | None) -> bool:
        if self.policy not in (rule_id, rule_name) or not urn:
            return False
        return self.resource == urn or fnmatch.fnmatchcase(urn, self.resource)

    def expired(self, today: dt.date) -> bool:
        return today > self.expires

    def describe(self) -> str:
        return f"waiver by {self.approver} until {self.expires.isoformat()}: {self.reason}"


def load_waivers(path: Path | str | None = None) -> list[Waiver]:
    """Parse and validate a waivers file; a missing default file means no waivers."""
    import yaml

    file = Path(path) if path else DEFAULT_PATH
    if not file.is_file():
        if path:
            raise WaiverError(str(file), "no such file")
        return []
    try:
        doc = yaml.safe_load(file.read_text()) or {}
    except yaml.YAMLError as exc:
        raise WaiverError(str(file), f"not valid YAML: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("waivers", []), list):
        raise WaiverError(str(file), "must be a mapping with a `waivers` list")
    out = []
    for i, entry in enumerate(doc.get("waivers") or []):
        where = f"{file}: waivers[{i}]"
        if not isinstance(entry, dict):
            raise WaiverError(where, "must be a mapping")
        unknown = set(entry) - set(FIELDS)
        if unknown:
            raise WaiverError(f"{where}.{sorted(unknown)[0]}", f"unknown key; allowed: {', '.join(FIELDS)}")
        for key in FIELDS:
            if entry.get(key) in (None, ""):
                raise WaiverError(f"{where}.{key}", "required")
        expires = entry["expires"]
        if isinstance(expires, str):
            try:
                expires = dt.date.fromisoformat(expires)
            except ValueError:
                raise WaiverError(f"{where}.expires", f"{expires!r} is not a date like 2026-12-31") from None
        if not isinstance(expires, dt.date) or isinstance(expires, dt.datetime):
            raise WaiverError(f"{where}.expires", "must be a date like 2026-12-31")
        out.append(Waiver(str(entry["policy"]), str(entry["resource"]), str(entry["reason"]),
                          str(entry["approver"]), expires))
    return out


def decide(waivers: list[Waiver], rule_id: str, rule_name: str, urn: str | None,
           today: dt.date) -> tuple[Waiver | None, Waiver | None]:
    """(the active waiver covering this violation, else None; an expired one that covers it, else None)."""
    covering = [w for w in waivers if w.covers(rule_id, rule_name, urn)]
    active = next((w for w in covering if not w.expired(today)), None)
    expired = next((w for w in covering if w.expired(today)), None)
    return active, expired

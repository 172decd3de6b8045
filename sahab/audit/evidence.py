"""The compliance evidence of one run: `audit.json` (the full record) and `audit.html` (a summary to read).

Both say what was scanned (account, regions, every resource), when, which rules ran, every finding, every
waiver applied and every part of the account the scan could not verify."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from sahab.errors import UsageError


def default_dir(started: datetime, base: Path | None = None) -> Path:
    return (base or Path.cwd() / "sahab-evidence") / started.strftime("%Y%m%dT%H%M%SZ")


def require_writable_file(path: Path, option: str) -> None:
    """Refuse, before any work, a file the run could not write at its end."""
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a folder; allowed: a file path")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise UsageError(f"{option} {path}: the file is not writable")
        if not path.is_file():
            return  # /dev/stdout and the like are written in place
    # The new file is written beside the old and renamed over it (write_atomic): the folder must take it.
    problem = _folder_problem(path.parent, creating=False)
    if problem:
        raise UsageError(f"{option} {path}: {problem}")


def require_writable_dir(path: Path, option: str) -> None:
    """Refuse, before any work, a folder that cannot be made or written."""
    problem = _folder_problem(path, creating=True)
    if problem:
        raise UsageError(f"{option} {path}: {problem}")


def _folder_problem(path: Path, creating: bool) -> str | None:
    existing = path
    while creating and not existing.exists() and existing != existing.parent:
        existing = existing.parent  # the run makes the missing folders below the nearest existing one
    if not existing.exists():
        return f"the folder {existing} does not exist"
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"the folder {existing} is not writable"
    return None


def write_evidence(document: dict[str, Any], directory: Path) -> tuple[Path, Path]:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot write the evidence to {directory}: {exc.strerror or exc}") from exc
    return write_evidence_file(document, directory / "audit.json")


def write_evidence_file(document: dict[str, Any], json_path: Path) -> tuple[Path, Path]:
    """The JSON at `json_path` and the HTML page beside it (same name, .html), each written atomically."""
    from sahab.workloads.outputs import write_atomic

    html_path = json_path.with_suffix(".html")
    try:
        json_text, html_text = json.dumps(document, indent=2) + "\n", render_html(document)
        write_atomic(json_path, json_text)
        write_atomic(html_path, html_text)
    except OSError as exc:
        raise UsageError(f"cannot write the evidence to {json_path}: {exc.strerror or exc}") from exc
    return json_path, html_path


def render_html(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    facts = [
        ["Account", doc["account"]], ["Scanned as", doc["caller"]], ["Started", doc["started"]],
        ["Finished", doc["finished"]],
        ["Regions scanned", ", ".join(doc["regionsScanned"])
         + (" (limited by --scan-regions)" if doc.get("scanLimitedToRegions") else " (every enabled region)")],
        ["Allowed regions", ", ".join(doc["allowedRegions"])], ["Waivers file", doc["waiversFile"] or "none"],
        ["API calls", s["apiCalls"]],
    ]
    resources = [[t, n] for t, n in s["resources"].items()]
    rules = [[r["id"], r["name"], r["severity"], r["enforcement"], r["title"]] for r in doc["rules"]]
    findings = [[f["rule"], f["severity"], f["enforcement"], f["region"], f["resource"], f["message"]]
                for f in doc["findings"]]
    waived = [[f["rule"], f["resource"], f["message"], f["waiver"]["reason"], f["waiver"]["approver"],
               f["waiver"]["expires"]] for f in doc["waived"]]
    errors = [[e["service"], e["region"], e["operation"], e["resource"] or "", e["code"],
               e["missingPermission"] or "", e["message"]] for e in doc["errors"]]
    return _template().render(doc=doc, s=s, facts=facts, resources=resources, rules=rules, findings=findings,
                              waived=waived, errors=errors)


def _template():
    """templates/audit.html.j2, every value HTML-escaped (autoescape): account data reaches it only as data."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("sahab.audit", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    return env.get_template("audit.html.j2")

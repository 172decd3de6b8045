"""The audit's result as one document, and that document as text, JSON or SARIF."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from sahab.audit.evaluate import Evaluation
from sahab.audit.scan_types import ScanResult
from sahab.schema import versions

TOOL = "sahab-audit"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def audit_document(scan: ScanResult, evaluation: Evaluation, allowed_regions: list[str],
                   waivers_file: str | None) -> dict[str, Any]:
    """Everything a reviewer or regulator needs to know about one run (the evidence's JSON)."""
    by_type = Counter(r.type for r in scan.resources)
    return {
        **versions(),
        "tool": TOOL,
        "account": scan.account_id,
        "partition": scan.partition,
        "caller": scan.caller_arn,
        "started": scan.started.isoformat(),
        "finished": scan.finished.isoformat() if scan.finished else None,
        "regionsScanned": scan.regions,
        "allowedRegions": list(allowed_regions),
        "waiversFile": waivers_file,
        "scanLimitedToRegions": scan.limited,
        "rules": [
            {"id": r.id, "name": r.name, "title": r.title, "severity": r.severity.value,
             "enforcement": r.enforcement.value,
             "frameworks": [f"{f.name}: {f.reference}" for f in r.frameworks]}
            for r in evaluation.rules
        ],
        "findings": [f.as_dict() for f in evaluation.findings],
        "waived": [f.as_dict() for f in evaluation.waived],
        "errors": [e.as_dict() for e in scan.errors],
        "resources": [{"type": r.type, "id": r.id, "region": r.region} for r in scan.resources],
        "summary": {
            "resources": dict(sorted(by_type.items())),
            "findings": len(evaluation.findings),
            "mandatory": len(evaluation.mandatory),
            "waived": len(evaluation.waived),
            "errors": len(scan.errors),
            "apiCalls": scan.total_api_calls,
            "passed": passed(scan, evaluation),
        },
        "apiCalls": scan.api_calls,
    }


def passed(scan: ScanResult, evaluation: Evaluation) -> bool:
    """Clean means no unwaived mandatory finding and nothing left unverified."""
    return not evaluation.mandatory and not scan.errors


def report_json(document: dict[str, Any]) -> dict[str, Any]:
    """The stdout JSON: the evidence without the full resource inventory (that is in the evidence file)."""
    return {k: v for k, v in document.items() if k != "resources"}


def report_sarif(document: dict[str, Any], evidence: Path | None = None) -> dict[str, Any]:
    """SARIF with every finding located in the evidence file (audit.json), at the line naming its resource:
    GitHub code scanning rejects results without a physical location."""
    rules = document["rules"]
    index = {r["id"]: i for i, r in enumerate(rules)}
    evidence_lines = evidence.read_text().splitlines() if evidence is not None and evidence.is_file() else []
    uri = _uri(evidence) if evidence is not None else "audit.json"

    def physical(finding: dict[str, Any]) -> dict[str, Any]:
        needle = json.dumps(finding["resource"])
        line = next((i for i, text in enumerate(evidence_lines, 1)
                     if f'"resource": {needle}' in text), 1)
        return {"artifactLocation": {"uri": uri}, "region": {"startLine": line}}

    def result(finding: dict[str, Any], waived: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ruleId": finding["rule"],
            "ruleIndex": index[finding["rule"]],
            "level": "error" if finding["enforcement"] == "mandatory" else "warning",
            "message": {"text": f"{finding['resource']}: {finding['message']}"},
            "locations": [{"physicalLocation": physical(finding), "logicalLocations": [
                {"fullyQualifiedName": finding["resource"], "kind": "resource"}]}],
            "properties": {"region": finding["region"], "type": finding["type"], "account": document["account"]},
        }
        if waived:
            waiver = finding["waiver"]
            out["suppressions"] = [{"kind": "external", "status": "accepted",
                                    "justification": f"{waiver['reason']} (approved by {waiver['approver']}, "
                                                     f"until {waiver['expires']})"}]
        return out

    notifications = [
        {"level": "error", "message": {"text": f"{e['service']} {e['region']}: {e['operation']} "
                                               f"{e['code']}: {e['message']}"}}
        for e in document["errors"]
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        # SARIF's own keys are fixed; a property bag
        "properties": {"schemaVersion": document["schemaVersion"], "sahabVersion": document["sahabVersion"]},
        "runs": [{
            "tool": {"driver": {
                "name": TOOL,
                "version": document["sahabVersion"],
                "semanticVersion": document["sahabVersion"],
                "rules": [{
                    "id": r["id"], "name": r["name"],
                    "shortDescription": {"text": r["title"]},
                    "defaultConfiguration": {"level": "error" if r["enforcement"] == "mandatory" else "warning"},
                    "properties": {"severity": r["severity"], "enforcement": r["enforcement"],
                                   "tags": r["frameworks"]},
                } for r in rules],
            }},
            "invocations": [{
                "executionSuccessful": not document["errors"],
                "startTimeUtc": document["started"], "endTimeUtc": document["finished"],
                "toolExecutionNotifications": notifications,
            }],
            "results": [result(f, False) for f in document["findings"]]
                       + [result(f, True) for f in document["waived"]],
        }],
    }


def _uri(path: Path) -> str:
    """The evidence file relative to the working directory (the checkout, in CI) when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.resolve().as_uri()


def render_text(document: dict[str, Any], console: Any = None) -> None:
    """Findings grouped by rule, one line per resource, then waivers, scan errors and the verdict."""
    from rich.console import Console
    from rich.markup import escape

    console = console or Console(highlight=False)
    summary = document["summary"]
    console.print(f"[bold]AWS account {document['account']}[/]: {len(document['regionsScanned'])} regions scanned "
                  f"from {document['started']} to {document['finished']}")
    console.print(f"allowed regions: {', '.join(document['allowedRegions'])}")
    counts = ", ".join(f"{n} {t.rsplit(':', 1)[1]}" for t, n in summary["resources"].items()) or "no resources"
    console.print(f"resources: {counts}")
    rules = {r["id"]: r for r in document["rules"]}
    current = None
    for f in document["findings"]:
        if f["rule"] != current:
            current = f["rule"]
            rule = rules[current]
            style = "red" if rule["enforcement"] == "mandatory" else "yellow"
            console.print(f"\n[{style}]{current}[/] {rule['name']} ({rule['severity']}, {rule['enforcement']}): "
                          f"{escape(rule['title'])}")
        console.print(f"  {f['region']:<15} {escape(f['resource'])}: {escape(f['message'])}")
    if document["waived"]:
        console.print("\n[bold]waived[/]")
    for f in document["waived"]:
        w = f["waiver"]
        console.print(f"  {f['rule']} {escape(f['resource'])}: {escape(w['reason'])} (approved by {w['approver']}, "
                      f"until {w['expires']})")
    if document["errors"]:
        console.print("\n[bold red]not verified[/] (scan errors)")
    # One line per kind of failure: a missing permission on a per-bucket call would otherwise be 1,000 lines.
    grouped: dict[tuple, list[dict[str, Any]]] = {}
    for e in document["errors"]:
        grouped.setdefault((e["service"], e["operation"], e["code"], e.get("missingPermission")), []).append(e)
    for (service, operation, code, missing), errors in grouped.items():
        regions = sorted({e["region"] for e in errors})
        named = [e["resource"] for e in errors if e.get("resource")]
        need = f" (needs {missing})" if missing else ""
        on = f" on {', '.join(named[:3])}{f' and {len(named) - 3} more' if len(named) > 3 else ''}" if named else ""
        console.print(f"  {service} {operation}{escape(on)}: {code}{need} in {', '.join(regions)}")
    verdict = "[green]PASS[/]" if summary["passed"] else "[red]FAIL[/]"
    console.print(f"\n{verdict}: {summary['findings']} findings ({summary['mandatory']} mandatory), "
                  f"{summary['waived']} waived, {summary['errors']} scan errors, {summary['apiCalls']} API calls")

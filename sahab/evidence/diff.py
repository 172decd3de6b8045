"""What changed between two bundles: resources added and removed, verdicts changed, waivers added or expired,
controls newly failing. Compares the bundles' evidence.json; `sahab evidence diff --public-key` verifies first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sahab.errors import UsageError
from sahab.evidence.bundle import EVIDENCE, KIND


def load(folder: Path) -> dict[str, Any]:
    path = Path(folder) / EVIDENCE
    if not Path(folder).is_dir() or not path.is_file():
        raise UsageError(f"{folder}: not an evidence bundle (no {EVIDENCE}); allowed: a folder written by "
                         "sahab evidence --out")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        raise UsageError(f"{path}: not readable JSON; allowed: a bundle's evidence.json") from None
    if not isinstance(doc, dict) or doc.get("kind") != KIND or not isinstance(doc.get("rules"), list):
        raise UsageError(f"{path}: not the evidence document of a bundle (kind {KIND!r})")
    return doc


def _verdicts(doc: dict[str, Any]) -> dict[tuple[str, str | None], str]:
    return {(r["id"], v["urn"]): v["verdict"] for r in doc["rules"] for v in r["verdicts"]}


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    from sahab.schema import versions

    old_res = {r["urn"]: r for r in before["resources"]}
    new_res = {r["urn"]: r for r in after["resources"]}
    old_v, new_v = _verdicts(before), _verdicts(after)
    findings = {}  # the non-passing verdicts of each added resource
    for (rule, urn), verdict in new_v.items():
        if urn in new_res and urn not in old_res and verdict != "pass":
            findings.setdefault(urn, []).append(f"{rule} {verdict}")
    verdicts = [{"rule": rule, "urn": urn, "before": old_v.get((rule, urn), "not judged"),
                 "after": new_v.get((rule, urn), "not judged")}
                for rule, urn in sorted(set(old_v) | set(new_v), key=lambda k: (k[0], k[1] or ""))
                if old_v.get((rule, urn)) != new_v.get((rule, urn))
                and (urn is None or (urn in old_res and urn in new_res))]
    old_rules = {r["id"]: r["verdict"] for r in before["rules"]}
    rules = [{"rule": rid, "before": old_rules.get(rid, "absent"), "after": r["verdict"]}
             for rid, r in ((r["id"], r) for r in after["rules"]) if old_rules.get(rid) != r["verdict"]]
    old_w = {w["ref"]: w for w in before["waivers"]}
    new_w = {w["ref"]: w for w in after["waivers"]}
    old_c = {(c["framework"], c["id"]): c for c in before["controls"]}
    controls = [{"framework": c["framework"], "id": c["id"], "title": c["title"],
                 "before": old_c[(c["framework"], c["id"])]["status"] if (c["framework"], c["id"]) in old_c
                 else "absent", "after": c["status"]}
                for c in after["controls"]
                if (c["framework"], c["id"]) not in old_c or old_c[(c["framework"], c["id"])]["status"] != c["status"]]
    return {
        **versions(),
        "before": _identity(before), "after": _identity(after),
        "resourcesAdded": [{"urn": u, "type": new_res[u]["type"], "findings": findings.get(u, [])}
                           for u in sorted(set(new_res) - set(old_res))],
        "resourcesRemoved": [{"urn": u, "type": old_res[u]["type"]} for u in sorted(set(old_res) - set(new_res))],
        "verdictsChanged": verdicts,
        "rulesChanged": rules,
        "waiversAdded": [_waiver(new_w[r]) for r in sorted(set(new_w) - set(old_w))],
        "waiversRemoved": [_waiver(old_w[r]) for r in sorted(set(old_w) - set(new_w))],
        "waiversExpired": [_waiver(w) for r, w in sorted(new_w.items())
                           if w["status"] == "expired" and old_w.get(r, {}).get("status") != "expired"],
        "waiversExpiring": [_waiver(w) for r, w in sorted(new_w.items())
                            if w["status"] == "expiring" and old_w.get(r, {}).get("status") not in ("expiring",
                                                                                                   "expired")],
        "controlsNewlyFailing": [c for c in controls if c["after"] == "fail"],
        "controlsChanged": controls,
    }


def _identity(doc: dict[str, Any]) -> dict[str, Any]:
    return {"project": doc["project"], "stack": doc["stack"], "generatedAt": doc["generatedAt"],
            "planSha256": doc["provenance"]["planSha256"]}


def _waiver(w: dict[str, Any]) -> dict[str, Any]:
    return {"ref": w["ref"], "owner": w["owner"], "expires": w["expires"], "status": w["status"]}


def text(changes: dict[str, Any]) -> str:
    b, a = changes["before"], changes["after"]
    lines = [f"sahab evidence diff: {b['project']}/{b['stack']} {b['generatedAt']} -> "
             f"{a['project']}/{a['stack']} {a['generatedAt']}"]
    if b["planSha256"] == a["planSha256"]:
        lines.append("plan: unchanged")
    sections = [
        ("resources added", [f"+ {r['urn']}" + (f" ({', '.join(r['findings'])})" if r["findings"] else "")
                             for r in changes["resourcesAdded"]]),
        ("resources removed", [f"- {r['urn']}" for r in changes["resourcesRemoved"]]),
        ("verdicts changed", [f"~ {v['rule']} {v['urn'] or '(the stack)'}: {v['before']} -> {v['after']}"
                              for v in changes["verdictsChanged"]]),
        ("rules changed", [f"~ {r['rule']}: {r['before']} -> {r['after']}" for r in changes["rulesChanged"]]),
        ("waivers added", [f"+ {w['ref']} (owner {w['owner']}, until {w['expires']})"
                           for w in changes["waiversAdded"]]),
        ("waivers removed", [f"- {w['ref']}" for w in changes["waiversRemoved"]]),
        ("waivers expired", [f"! {w['ref']} (expired {w['expires']}, owner {w['owner']})"
                             for w in changes["waiversExpired"]]),
        ("waivers expiring within 30 days", [f"! {w['ref']} (until {w['expires']}, owner {w['owner']})"
                                             for w in changes["waiversExpiring"]]),
        ("controls newly failing", [f"! {c['framework']} {c['id']} {c['title']}: {c['before']} -> fail"
                                    for c in changes["controlsNewlyFailing"]]),
        ("controls changed", [f"~ {c['framework']} {c['id']}: {c['before']} -> {c['after']}"
                              for c in changes["controlsChanged"] if c["after"] != "fail"]),
    ]
    shown = False
    for title, entries in sections:
        if entries:
            shown = True
            lines.append(f"{title} ({len(entries)}):")
            lines.extend(f"  {e}" for e in entries)
    if not shown:
        lines.append("no change in resources, verdicts, waivers or controls")
    return "\n".join(lines) + "\n"

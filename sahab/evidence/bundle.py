"""Build a bundle: gather what Sahab knows about a stack into one document, write it in its three formats, sign.

The same code paths as the CLI's own commands give the facts: the plan (`sahab plan`), the pack's verdicts
(`sahab check`), the readiness verdict, the artifact list (`sahab registry list`) and the waivers file."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from sahab.engine import Plan
from sahab.errors import ConfigError, UsageError
from sahab.evidence import matrix, provenance
from sahab.evidence.signing import ENVELOPE, sign

EVIDENCE = "evidence.json"
HTML = "evidence.html"
CSV = "controls.csv"
AUDIT = "audit.json"
KIND = "sahab-evidence"


def collect(plan: Plan, *, layers: list, waivers_path: Path | str | None, when: dt.datetime,
            audit: dict[str, Any] | None = None, audit_sha256: str | None = None,
            referenced: list | None = None) -> dict[str, Any]:
    """The evidence document of one planned stack, judged as of `when` (waiver expiry counts from its date).
    `referenced`: the resources of the stacks the plan references, when the caller has them already."""
    from sahab.policies.waivers import DEFAULT_PATH, WaiverError, load_waivers
    from sahab.policy_check import check_plan, stack_waivers
    from sahab.readiness import judge
    from sahab.readiness.referenced import referenced_resources
    from sahab.schema import versions

    today = when.date()
    # The waivers file is held to its rules on the real day of this run (a mandatory rule's waiver ends within 90
    # days of it, as in `sahab check`); its waivers then apply as of `when`, the time the bundle records, which
    # SOURCE_DATE_EPOCH may set years back or ahead.
    result = check_plan(plan, layers, today=today, waivers=stack_waivers(plan.stack, layers, waivers_path))
    try:
        waivers = load_waivers(waivers_path)
    except WaiverError as exc:
        raise ConfigError(exc.path, exc.message) from None
    if referenced is None:
        referenced, _ = referenced_resources(plan)
    readiness = judge(plan.resources, referenced)
    rules = matrix.rule_verdicts(result, waivers, today)
    register = matrix.waiver_register(waivers, result, today)
    controls = matrix.control_matrix(rules, register)
    if audit is not None:
        merge_audit(controls, rules, audit)
    waivers_file = Path(waivers_path) if waivers_path else DEFAULT_PATH
    summary = result.summary()
    doc: dict[str, Any] = {
        **versions(),
        "kind": KIND,
        "project": plan.project,
        "stack": plan.stack,
        "generatedAt": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "provenance": {
            "planSha256": provenance.plan_sha256(plan),
            "pack": {"name": "sahab-uae-residency", "version": pack_version()},
            "git": provenance.git_state(plan.program_dir),
            "tools": provenance.tool_versions(plan, provenance.program_interpreter(plan.program_dir)),
            "policyConfig": [_file_ref(Path(layer.where), plan.program_dir) for layer in layers],
            "waiversFile": _file_ref(waivers_file, plan.program_dir) if waivers_file.is_file() else None,
        },
        "summary": {
            "resources": summary["resources"], "passed": summary["passed"], "mandatory": summary["mandatory"],
            "advisory": summary["advisory"], "waived": summary["waived"], "ready": readiness.ok,
            "controls": _count(c["status"] for c in controls),
            "waivers": _count(w["status"] for w in register),
        },
        "readiness": readiness.contract(),
        "controls": controls,
        "rules": rules,
        "waivers": register,
        "relaxations": list(result.relaxations),
        "artifacts": artifacts(plan),
        "resources": [{"urn": r.urn, "type": r.type, "name": r.name} for r in plan.resources],
        "audit": audit_summary(audit, audit_sha256) if audit is not None else None,
    }
    return doc


def pack_version() -> str:
    """PulumiPolicy.yaml's version: what the pack tells the Pulumi engine (policies/__main__.py)."""
    import yaml

    from sahab import policies

    return str(yaml.safe_load((Path(policies.__file__).parent / "PulumiPolicy.yaml").read_text())["version"])


def _file_ref(path: Path, program_dir: Path) -> dict[str, str]:
    """A file the verdicts depend on, by its hash and its path (relative to the program's folder when inside it,
    so the same checkout gives the same bundle wherever it is run from)."""
    resolved = path.resolve()
    try:
        shown = resolved.relative_to(Path(program_dir).resolve()).as_posix()
    except ValueError:
        shown = resolved.as_posix()
    return {"file": shown, "sha256": provenance.file_sha256(path)}


def _count(values) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))


def artifacts(plan: Plan) -> dict[str, Any]:
    """`sahab registry list`'s data for the stack: each image and chart, its upstream, in-country target, digest."""
    from sahab.commands.registry import registry_document

    try:
        doc = registry_document(plan.program_dir, plan.stack)
    except ConfigError as exc:
        return {"registries": {}, "artifacts": [], "note": str(exc)}
    return {"registries": doc["registries"], "artifacts": doc["artifacts"]}


# ---------------------------------------------------------------------------------------------------------
# The live audit (`sahab audit aws --evidence FILE`)


def read_audit(path: Path) -> tuple[dict[str, Any], bytes]:
    try:
        raw = Path(path).read_bytes()
        doc = json.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise UsageError(f"--audit {path}: cannot read it ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, ValueError):
        raise UsageError(f"--audit {path}: not JSON; allowed: the file `sahab audit aws --evidence FILE` wrote") \
            from None
    wanted = {"findings": list, "waived": list, "errors": list, "summary": dict, "rules": list}
    if not isinstance(doc, dict) or doc.get("tool") != "sahab-audit" or not all(
            isinstance(doc.get(k), t) for k, t in wanted.items()):
        raise UsageError(f"--audit {path}: not the evidence of a live audit; allowed: the file `sahab audit aws "
                         "--evidence FILE` wrote")
    return doc, raw


def merge_audit(controls: list[dict[str, Any]], rules: list[dict[str, Any]], audit: dict[str, Any]) -> None:
    """Each control gains the live audit's findings by its rules: what is deployed, beside what is planned."""
    names = {r["id"]: r["name"] for r in rules}
    for control in controls:
        mine = set(control["rules"])
        found = [f for f in audit["findings"] if f.get("rule") in mine]
        waived = [f for f in audit["waived"] if f.get("rule") in mine]
        control["live"] = {"findings": len(found), "mandatory": sum(f.get("enforcement") == "mandatory"
                                                                    for f in found),
                           "waived": len(waived), "rules": sorted({names.get(f["rule"], f["rule"]) for f in found})}


def audit_summary(audit: dict[str, Any], sha256: str | None) -> dict[str, Any]:
    keep = ("account", "partition", "caller", "started", "finished", "regionsScanned", "allowedRegions",
            "sahabVersion", "summary", "findings", "waived", "errors")
    return {"file": AUDIT, "sha256": sha256, **{k: audit.get(k) for k in keep}}


# ---------------------------------------------------------------------------------------------------------
# Writing and signing


def require_empty_folder(out: Path) -> None:
    """Refuse, before any work, a folder that already holds files: the bundle signs everything in it."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: is a file; allowed: a new or empty folder")
    if out.is_dir() and any(out.iterdir()):
        raise UsageError(f"--out {out}: not empty; allowed: a new or empty folder (the bundle signs every file "
                         "in it)")
    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out}: the folder {existing} is not writable")


def write(doc: dict[str, Any], out: Path, signer, audit_raw: bytes | None = None) -> list[Path]:
    """Write the bundle's files into `out`, then the envelope that signs them; return every path written."""
    from sahab.evidence.render import render_csv, render_html
    from sahab.workloads.outputs import atomic_dir

    out = Path(out)
    files = {EVIDENCE: json.dumps(doc, indent=2, ensure_ascii=False) + "\n", CSV: render_csv(doc),
             HTML: render_html(doc)}
    predicate = {"project": doc["project"], "stack": doc["stack"], "generatedAt": doc["generatedAt"],
                 "sahabVersion": doc["sahabVersion"], "planSha256": doc["provenance"]["planSha256"],
                 "passed": doc["summary"]["passed"], "ready": doc["summary"]["ready"]}
    names = []
    try:
        # Built in a folder beside `out` and renamed into place: a failure leaves no half bundle, so a re-run works.
        with atomic_dir(out) as building:
            for name, text in files.items():
                (building / name).write_text(text, encoding="utf-8", newline="")
                names.append(name)
            if audit_raw is not None:
                (building / AUDIT).write_bytes(audit_raw)
                names.append(AUDIT)
            names.append(sign(building, signer, predicate).name)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write the bundle ({exc.strerror or exc})") from None
    written = [out / name for name in names]
    assert written[-1].name == ENVELOPE
    return written

"""The evidence document as one printable HTML page and as a CSV of the control matrix."""

from __future__ import annotations

import csv
import io
from typing import Any

CSV_COLUMNS = ("framework", "control", "title", "status", "rule", "rule_title", "enforcement", "rule_verdict",
               "resource", "resource_type", "verdict", "waiver", "detail")
# What the page shows of each resource verdict: the passes are counted, the rest listed.
LISTED = ("fail", "advisory", "waived")


def render_csv(doc: dict[str, Any]) -> str:
    """One row per control, rule and resource the rule judged; a control no rule serves is one row with the
    reason; a rule that judged no resource is one row with its verdict."""
    rules = {r["id"]: r for r in doc["rules"]}
    types = {r["urn"]: r["type"] for r in doc["resources"]}
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow(CSV_COLUMNS)
    for c in doc["controls"]:
        head = (c["framework"], c["id"], c["title"], c["status"])
        if not c["rules"]:
            out.writerow((*head, "", "", "", "", "", "", "", "", c["reason"] or ""))
            continue
        for rule_id in c["rules"]:
            r = rules[rule_id]
            rule = (r["id"], r["title"], r["enforcement"], r["verdict"])
            if not r["verdicts"]:
                out.writerow((*head, *rule, "", "", r["verdict"], "", "the stack as a whole" if r["scope"] == "stack"
                              else "no resource of this stack is of a type the rule judges"))
            for v in r["verdicts"]:
                out.writerow((*head, *rule, v["urn"] or "(the stack)", types.get(v["urn"], ""), v["verdict"],
                              v.get("waiver") or "", "; ".join(v.get("messages", []))))
    return buffer.getvalue()


def render_html(doc: dict[str, Any]) -> str:
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("sahab", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    names = {r["urn"]: f"{r['type']} {r['name']}" for r in doc["resources"]}
    findings = [(r["id"], names.get(v["urn"], v["urn"] or "the stack"), v["verdict"], v.get("waiver") or "",
                 "; ".join(v.get("messages", [])))
                for r in doc["rules"] for v in r["verdicts"] if v["verdict"] in LISTED]
    frameworks = []
    for c in doc["controls"]:
        if not frameworks or frameworks[-1][0] != c["framework"]:
            frameworks.append((c["framework"], []))
        frameworks[-1][1].append(c)
    return env.get_template("evidence.html.j2").render(doc=doc, frameworks=frameworks, findings=findings)

"""Verdicts for the evidence bundle: each rule on each resource it judges, each control from its rules, and the
waiver register. Built from what `sahab check` found (its violations and waived findings) over the plan.

A resource rule judges every resource of a type it applies to: `fail` (a violation of a mandatory rule, or one an
expired waiver no longer covers), `advisory` (a violation of an advisory rule), `waived` (a violation an active
waiver covers) or `pass`. A stack rule judges the stack as a whole and names the resources it found wrong, so its
verdicts list only those. A rule the stack's policy config disables judges nothing.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from sahab.policies.controls import CONTROLS, rules_for
from sahab.policies.core import Rule, all_rules
from sahab.policies.waivers import Waiver
from sahab.policy_check import CheckResult

EXPIRING_DAYS = 30  # a waiver that ends within this many days is flagged in the register
# Worst first: a control or rule takes the worst verdict of what it is made of.
ORDER = ("fail", "advisory", "waived", "pass", "not-applicable")


def worst(verdicts) -> str:
    found = set(verdicts)
    return next((v for v in ORDER if v in found), "not-applicable")


def waiver_ref(w: Waiver) -> str:
    """How the bundle names a waiver: its rule's id and the resource it covers (unique within a waivers file)."""
    from sahab.policies.core import rule_by

    rule = rule_by(w.policy)
    return f"{rule.id if rule else w.policy} @ {w.resource}"


def rule_verdicts(result: CheckResult, waivers: list[Waiver], today: dt.date) -> list[dict[str, Any]]:
    from sahab.policies.waivers import decide

    resources = [r for r in result.plan.resources if r.type != "pulumi:pulumi:Stack"]
    out = []
    for rule in all_rules():
        level = result.levels.get(rule.name, rule.enforcement.value)
        found: dict[str | None, dict[str, Any]] = {}
        for v in result.violations:
            if v.policy == rule.name:
                entry = found.setdefault(v.urn, {"urn": v.urn, "verdict": "fail" if level == "mandatory"
                                                 else "advisory", "messages": []})
                entry["messages"].append(v.message)
        for w in result.waived:
            if w.policy == rule.name and w.urn not in found:
                active, _ = decide(waivers, rule.id, rule.name, w.urn, today)
                found[w.urn] = {"urn": w.urn, "verdict": "waived", "messages": [w.message],
                                "waiver": waiver_ref(active) if active else None}
        if level == "disabled":
            verdicts: list[dict[str, Any]] = []
        elif rule.scope == "resource":
            verdicts = [found.get(r.urn) or {"urn": r.urn, "verdict": "pass"}
                        for r in resources if rule.applies_to(r.type)]
            verdicts += [f for urn, f in found.items() if urn not in {v["urn"] for v in verdicts}]
        else:
            verdicts = list(found.values())
        verdicts.sort(key=lambda v: (ORDER.index(v["verdict"]), v["urn"] or ""))
        if level == "disabled":
            overall = "disabled"
        elif rule.scope == "stack":
            overall = worst(v["verdict"] for v in verdicts) if verdicts else "pass"
        else:
            overall = worst(v["verdict"] for v in verdicts)
        counts = Counter(v["verdict"] for v in verdicts)
        out.append({"id": rule.id, "name": rule.name, "title": rule.title, "severity": rule.severity.value,
                    "enforcement": level, "scope": rule.scope, "verdict": overall,
                    "frameworks": [f"{f.name} {f.reference}" for f in rule.frameworks],
                    "counts": {k: counts.get(k, 0) for k in ("pass", "fail", "advisory", "waived")},
                    "verdicts": verdicts})
    return out


def control_matrix(rules: list[dict[str, Any]], waivers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every control of every framework: the rules serving it with their verdicts, the waivers in force, and
    the control's status (the worst of its rules'; `not-served` with the reason when no rule serves it)."""
    by_id = {r["id"]: r for r in rules}
    catalog: list[Rule] = all_rules()
    in_force = [w for w in waivers if w["status"] != "expired" and w["covers"]]
    out = []
    for control in CONTROLS:
        serving = [by_id[r.id] for r in rules_for(control, catalog)]
        judged = [r["verdict"] for r in serving if r["verdict"] != "disabled"]
        status = worst(judged) if serving else "not-served"
        ids = {r["id"] for r in serving}
        names = {r["name"] for r in serving}
        out.append({
            "framework": control.framework, "id": control.id, "title": control.title, "status": status,
            "rules": [r["id"] for r in serving],
            "reason": control.not_served,
            **({"via": list(control.via)} if control.via else {}),
            "waivers": [w["ref"] for w in in_force if w["ruleId"] in ids or w["rule"] in names],
        })
    return out


def waiver_register(waivers: list[Waiver], result: CheckResult, today: dt.date) -> list[dict[str, Any]]:
    """The waivers that concern this stack: those covering one of its resources, and those naming it that cover
    nothing (stale). Expired and expiring (within EXPIRING_DAYS) ones are flagged."""
    from sahab.policies.core import rule_by

    stack_prefix = f"urn:pulumi:{result.plan.stack}::"
    urns = [r.urn for r in result.plan.resources]
    out = []
    for w in waivers:
        rule = rule_by(w.policy)
        covers = [u for u in urns if rule is not None and w.covers(rule.id, rule.name, u)]
        if not covers and not w.resource.startswith(stack_prefix):
            continue
        days_left = (w.expires - today).days
        status = "expired" if days_left < 0 else "expiring" if days_left <= EXPIRING_DAYS else "active"
        out.append({"ref": waiver_ref(w), "rule": rule.name if rule else w.policy, "ruleId": rule.id if rule else "",
                    "resource": w.resource, "owner": w.approver, "reason": w.reason,
                    "granted": w.granted.isoformat() if w.granted else None, "expires": w.expires.isoformat(),
                    "daysLeft": days_left, "status": status, "covers": covers})
    return out

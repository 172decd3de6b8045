"""SARIF 2.1.0 for GitHub code scanning: one result per violation; rule metadata (help text, severity,
frameworks) under tool.driver.rules.

A violation caused by a `sahab:fleet` setting is located at that setting's line in the stack file, where a pull
request changes it, with the program line that built the resource as a related location; any other violation
at the program line (sahab.report_locations)."""

from __future__ import annotations

from typing import Any

from sahab.policy_check import CheckResult
from sahab.report_locations import fleet_setting, location, relative, repository_root, stack_file
from sahab.version import version

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# SARIF levels, and GitHub's security-severity scores (0-10) that rank alerts.
_LEVEL = {"mandatory": "error", "advisory": "warning"}
_SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0"}


def sarif(result: CheckResult) -> dict[str, Any]:
    from sahab.policies.core import all_rules

    rules = all_rules()
    index = {r.name: i for i, r in enumerate(rules)}
    root = repository_root(result.plan.program_dir)
    results = []
    for v in result.violations:
        file, line = location(result, v, root)
        related = []
        setting = fleet_setting(result, v)
        if setting is not None:
            related = [{"id": 1, "message": {"text": "the program line that built the resource"},
                        "physicalLocation": {"artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"},
                                             "region": {"startLine": line}}}]
            file, line = relative(stack_file(result), root), setting.line
        results.append({
            "ruleId": v.rule_id,
            "ruleIndex": index[v.policy],
            "level": _LEVEL.get(v.enforcement, "note"),
            "message": {"text": f"{v.type or 'stack'} {v.name or ''}: {v.message}".replace(" :", ":")},
            "locations": [{
                "physicalLocation": {"artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"},
                                     "region": {"startLine": line}},
                "logicalLocations": [{"fullyQualifiedName": v.urn or f"stack {result.plan.stack}",
                                      "kind": "resource"}],
            }],
            **({"relatedLocations": related} if related else {}),
            "partialFingerprints": {"sahabViolation/v1": f"{v.rule_id}:{v.urn or ''}:{v.message}"},
            "properties": {"enforcement": v.enforcement, "severity": v.severity, "stack": result.plan.stack,
                           "phase": v.phase,
                           **({"setting": setting.path} if setting is not None else {})},
        })
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sahab-check",
                "version": version(),
                "semanticVersion": version(),
                "rules": [_rule(r) for r in rules],
            }},
            "automationDetails": {"id": f"sahab-check/{result.plan.stack}/"},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
            "results": results,
        }],
    }


def _rule(rule) -> dict[str, Any]:
    frameworks = "; ".join(f"{f.name} {f.reference}" for f in rule.frameworks)
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.description},
        "help": {"text": f"{rule.description}\n\nRemediation: {rule.remediation}\n\nFrameworks: {frameworks}",
                 "markdown": f"{rule.description}\n\n**Remediation:** {rule.remediation}\n\n"
                             f"**Frameworks:** {frameworks}"},
        "defaultConfiguration": {"level": _LEVEL.get(rule.enforcement.value, "none")},
        "properties": {"tags": ["security", "residency" if rule.residency else "encryption"],
                       "security-severity": _SECURITY_SEVERITY[rule.severity.value],
                       "frameworks": [f"{f.name} {f.reference}" for f in rule.frameworks]},
    }

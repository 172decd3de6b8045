"""Human-readable `sahab check` output: violations grouped by severity, each with its remediation."""

from __future__ import annotations

from typing import TextIO

from sahab.policy_check import SEVERITY_ORDER, CheckResult
from sahab.report_locations import location, repository_root


def shown(value: object) -> str:
    """Text from the program (names, types, messages that quote its values, its project name, its file names) as
    one printable line: a newline, CR, ANSI escape, bidi override or other control or format character is written
    as its Python escape (`\\n`, `\\x1b`, `\\u202e`), so a resource name cannot start a line of its own in the report
    (or in the markdown that embeds it) nor recolour a terminal."""
    text = str(value)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def render_text(result: CheckResult, out: TextIO, quiet: bool = False) -> None:
    """The report; `quiet` (--quiet): only the failures, the mandatory violations and the verdict, and nothing at
    all when the stack passes."""
    from sahab.policies.core import rule_by

    summary = result.summary()
    if quiet and not result.exit_code:
        return
    violations = result.mandatory if quiet else result.violations
    root = repository_root(result.plan.program_dir)
    out.write(f"sahab check: {shown(summary['project'])} / stack {shown(summary['stack'])}: "
              f"{summary['resources']} resources, "
              f"{summary['policies']} policies\n")
    if any(v.phase != "preview" for v in result.violations):
        out.write("findings marked [update] judge values only `pulumi up` computes (what apply() returns), which a "
                  "preview leaves unknown\n")
    for severity in SEVERITY_ORDER:
        group = [v for v in violations if v.severity == severity]
        if not group:
            continue
        out.write(f"\n{severity.upper()} ({len(group)})\n")
        by_rule: dict[tuple[str, str], list] = {}
        for v in group:
            by_rule.setdefault((v.enforcement, v.policy), []).append(v)
        for (enforcement, policy), found in by_rule.items():
            rule = rule_by(policy)
            out.write(f"  [{enforcement}] {found[0].rule_id} {policy}: {rule.title if rule else ''}\n")
            for v in found:
                file, line = location(result, v, root)
                what = f"{shown(v.type)} {shown(v.name)}" if v.type else "stack"
                out.write(f"    - {what} ({shown(file)}:{line}) [{v.phase}]\n      {shown(v.message)}\n")
            if rule is not None:
                out.write(f"    fix: {rule.remediation}\n")
    for note in [] if quiet else result.relaxations:
        out.write(f"\nrelaxed: {shown(note)}\n")
    for w in [] if quiet else result.waived:
        out.write(f"\nwaived: {w.policy} on {shown(w.urn)} by {shown(w.approver)} until {w.expires} "
                  f"({shown(w.reason)})\n")
    verdict = "FAILED" if result.exit_code else "passed"
    out.write(f"\n{verdict}: {summary['mandatory']} mandatory, {summary['advisory']} advisory, "
              f"{summary['waived']} waived\n")

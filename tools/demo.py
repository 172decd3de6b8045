"""`make demo`: what each stack would build, whether it would come up, and what the policy pack says, in a screen.

    python tools/demo.py [--verbose] [STACK ...]     # `make demo` (smb prod); `make demo VERBOSE=1`

Per stack, from one offline plan (the program under Pulumi's mocks, as `sahab plan` runs it):
- the resources by kind (components apart: they build nothing themselves);
- the readiness verdict and where each workload lands (cluster, pool, nodes);
- the policy verdict (as `sahab check`), with violations and waivers each grouped by rule: how many resources,
  whose waiver, until when.
--verbose prints, after that summary, everything `sahab plan` and `sahab check` print.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
WIDTH = 100  # the summary's lines wrap here
KINDS = 12  # resource kinds listed per stack, most first (all with --verbose)
SHOWN = 8  # problems and violations listed per stack before "and N more" (all with --verbose)


def kind(type_token: str) -> str:
    """`kubernetes:apps/v1:Deployment` -> Deployment, `aws:ec2/vpc:Vpc` -> Vpc, `random:index/randomPassword:...`."""
    return type_token.rsplit(":", 1)[-1]


def resources_by_kind(resources) -> tuple[int, int, list[tuple[str, int]]]:
    """(resources, components, [(kind, count)] most first): what a `pulumi up` would create."""
    built = [r for r in resources if r.custom and not r.type.startswith("pulumi:providers:")]
    counts = Counter(kind(r.type) for r in built)
    components = sum(1 for r in resources if not r.custom)
    return len(built), components, sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def by_cluster(placements) -> dict[str, list]:
    """cluster -> its placements, in the order the plan placed them."""
    clusters: dict[str, list] = defaultdict(list)
    for placement in placements:
        clusters[placement.cluster].append(placement)
    return clusters


def by_rule(items, rule_ids: dict[str, str]) -> list[tuple[str, str, list]]:
    """[(rule id, rule name, items)], the rule with most items first."""
    groups: dict[str, list] = defaultdict(list)
    for item in items:
        groups[item.policy].append(item)
    return sorted(((rule_ids.get(name) or getattr(found[0], "rule_id", "?"), name, found)
                   for name, found in groups.items()),
                  key=lambda group: (-len(group[2]), group[0]))


def wrapped(label: str, parts: list[str]) -> list[str]:
    """`label  a, b, c` over as many lines as WIDTH needs, continuation lines indented under the first part."""
    lines, line = [], f"  {label:<10} "
    for i, part in enumerate(parts):
        piece = part + ("," if i < len(parts) - 1 and not part.endswith(":") else "")
        if len(line) + len(piece) + 1 > WIDTH and i:
            lines.append(line.rstrip())
            line = " " * 13
        line += piece + " "
    lines.append(line.rstrip())
    return lines


def summary(stack: str, planned, readiness, checked, rule_ids: dict[str, str], verbose: bool) -> list[str]:
    count, components, kinds = resources_by_kind(planned.resources)
    lines = [f"{stack}: {count} resources from {components} components  "
             f"(sahab plan --stack {stack}; sahab check --stack {stack})"]
    shown_kinds = kinds if verbose else kinds[:KINDS]
    more = [f"and {len(kinds) - len(shown_kinds)} more kinds"] if len(shown_kinds) < len(kinds) else []
    lines += wrapped("resources", [f"{n} {k}" for k, n in shown_kinds] + more)

    lines.append(f"  {'readiness':<10} " + ("ready" if readiness.ok else
                                           f"NOT READY: {len(readiness.problems)} problems"))
    for cluster, placed in by_cluster(readiness.placements).items():
        lines += wrapped("", [f"{cluster}:"] + [f"{p.workload.rsplit('/', 1)[-1]} -> {p.pool} x{p.nodes}"
                                               for p in placed])
    shown = readiness.problems if verbose else readiness.problems[:SHOWN]
    lines += [f"    {p.cluster}: {p.object}: {p.problem}" for p in shown]
    if len(shown) < len(readiness.problems):
        lines.append(f"    and {len(readiness.problems) - len(shown)} more (--verbose)")

    s = checked.summary()
    verdict = "passed" if s["passed"] else "FAILED"
    lines.append(f"  {'policy':<10} {verdict}: {s['policies']} rules, {s['mandatory']} mandatory, "
                 f"{s['advisory']} advisory, {s['waived']} waived")
    violations = by_rule(checked.violations, rule_ids)
    for rule_id, name, found in violations if verbose else violations[:SHOWN]:
        lines.append(f"    {found[0].enforcement:<9} {rule_id:<15} {name} ({len(found)} resources)")
    if not verbose and len(violations) > SHOWN:
        lines.append(f"    and {len(violations) - SHOWN} more rules (--verbose)")
    for rule_id, name, found in by_rule(checked.waived, rule_ids):
        owners = ", ".join(sorted({w.approver for w in found}))
        expiry = min(w.expires for w in found)
        lines.append(f"    waived    {rule_id:<15} {name}: {len(found)} resources, {owners}, expires {expiry}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also print everything `sahab plan` and `sahab check` print")
    parser.add_argument("stacks", nargs="*", default=["smb", "prod"], metavar="STACK",
                        help="stacks to show (default: smb prod)")
    args = parser.parse_args(argv)

    from sahab.components.validation import stack_name

    for stack in args.stacks:
        if stack_name(stack):
            print(f"error: STACK {stack!r} is not a stack name; allowed: {stack_name(stack)}", file=sys.stderr)
            return 2
    try:
        return show(args.stacks, args.verbose)
    except Exception as exc:  # a missing stack, a broken program: one `error:` line, as sahab itself
        from sahab.errors import report_error

        return report_error(exc)


def show(stacks: list[str], verbose: bool) -> int:
    from sahab.policies.core import all_rules

    from sahab.engine import plan
    from sahab.policy_check import check_plan, policy_config_layers, preload
    from sahab.readiness import judge
    from sahab.readiness.referenced import referenced_resources

    rule_ids = {rule.name: rule.id for rule in all_rules()}
    preload()
    failed = False
    for i, stack in enumerate(stacks):
        planned = plan(ROOT, stack, preview=True)
        referenced, _ = referenced_resources(planned)
        readiness = judge(planned.resources, referenced)
        checked = check_plan(planned, policy_config_layers(ROOT, stack, None))
        failed |= not readiness.ok or checked.exit_code != 0
        if verbose:
            from sahab.commands.check import _render
            from sahab.render import render_plan_text, render_readiness_text

            render_plan_text(planned)
            render_readiness_text(readiness)
            sys.stdout.write(_render(checked, "text"))
        print(("\n" if i or verbose else "") + "\n".join(summary(stack, planned, readiness, checked, rule_ids,
                                                                  verbose)))
    if not verbose:
        print("\nEverything (each resource, each finding, each waiver): make demo VERBOSE=1")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

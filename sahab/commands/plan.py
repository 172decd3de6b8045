"""`sahab plan`: what a stack would build, from the program itself under Pulumi's mocks."""

from __future__ import annotations

import argparse

HELP = ("Run a Pulumi Python program offline under mocks, list every resource it would create and judge whether "
        "the fleet would come up (exit 1 when it would not).")


def stack_name(text: str) -> str:
    """--stack: a stack's name, never a path (it picks `Pulumi.<stack>.yaml`)."""
    from sahab.components.validation import shown
    from sahab.components.validation import stack_name as problem_with

    problem = problem_with(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a stack name; allowed: {problem}")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sahab.workloads.inputs import seconds_option

    parser.add_argument("--stack", "-s", default="dev", type=stack_name,
                        help="stack name: reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="folder holding Pulumi.yaml (default: the nearest one from the current folder up)")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print only failures (the readiness problems; nothing when the fleet would come up) "
                             "and no progress line")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--timeout", type=seconds_option(0, 86400), metavar="SECONDS", default=None,
                        help="stop a program that runs longer (default: $SAHAB_PROGRAM_TIMEOUT or 300)")


def seed_references(result) -> dict[str, set[str]] | None:
    """The stack's seed list per cluster kind (what its registries hold once seeded), for a Sahab fleet."""
    from sahab.project import find_project
    from sahab.registry.stack import seeded

    return seeded(find_project(result.program_dir), result.stack)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from sahab import strays
    from sahab.engine import plan
    from sahab.progress import spinner
    from sahab.readiness import judge
    from sahab.readiness.referenced import referenced_resources
    from sahab.render import render_plan_text, render_readiness_text

    strays.adopt_orphans()  # what the program leaves running is ended before the plan is printed
    with spinner(f"planning {args.stack}", args.quiet) as progress:
        try:
            result = plan(args.program, args.stack, preview=True, timeout=args.timeout, on_resource=progress)
        finally:
            strays.end_orphans()
        referenced, warnings = referenced_resources(result)
    for warning in result.notices:
        print(f"warning: {warning}", file=sys.stderr)
    result.warnings += warnings
    readiness = judge(result.resources, referenced, seed_references(result))
    if args.format == "json":
        doc = {**result.contract(), "readiness": readiness.contract()}
        print(json.dumps(doc, indent=2, sort_keys=False))
    elif not args.quiet:
        render_plan_text(result)
        render_readiness_text(readiness)
    elif not readiness.ok:
        render_readiness_text(readiness, quiet=True)
    return 0 if readiness.ok else 1

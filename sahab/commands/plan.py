"""`sahab plan`: what a stack would build, from the program itself under Pulumi's mocks."""

from __future__ import annotations

import argparse

HELP = "Run a Pulumi Python program offline under mocks and list every resource it would create."


def stack_name(text: str) -> str:
    """--stack: a stack's name, never a path (it picks `Pulumi.<stack>.yaml`)."""
    from components.validation import shown
    from components.validation import stack_name as problem_with

    problem = problem_with(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a stack name; allowed: {problem}")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stack", "-s", default="dev", type=stack_name,
                        help="stack name: reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="folder holding Pulumi.yaml (default: this Sahab project)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def run(args: argparse.Namespace) -> int:
    import json

    from sahab.engine import plan
    from sahab.render import render_plan_text

    result = plan(args.program, args.stack)
    if args.format == "json":
        print(json.dumps(result.contract(), indent=2, sort_keys=False))
    else:
        render_plan_text(result)
    return 0

"""`sahab plan`: what a stack would build, from the program itself under Pulumi's mocks."""

from __future__ import annotations

import argparse

HELP = "Run a Pulumi Python program offline under mocks and list every resource it would create."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stack", "-s", default="dev", help="stack name: reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="folder holding Pulumi.yaml (default: this Sahab project)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line on stderr")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def run(args: argparse.Namespace) -> int:
    import json

    from sahab.engine import plan
    from sahab.progress import spinner
    from sahab.render import render_plan_text

    with spinner(f"planning {args.stack}", args.quiet):
        result = plan(args.program, args.stack)
    if args.format == "json":
        print(json.dumps(result.contract(), indent=2, sort_keys=False))
    else:
        render_plan_text(result)
    return 0

"""`sahab doctor`: check, before `pulumi up`, what the run needs from this machine, the servers and the clouds."""

from __future__ import annotations

import argparse

HELP = ("Check what a real `pulumi up` of a stack needs (tools, credentials, reachability, what the clouds offer "
        "and allow); one line per check, exit 1 when any fails.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sahab.commands.plan import stack_name
    from sahab.workloads.inputs import seconds_option

    parser.add_argument("--stack", "-s", default="dev", type=stack_name,
                        help="stack name: reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="folder holding Pulumi.yaml (default: the nearest one from the current folder up)")
    parser.add_argument("--only", action="append", default=[], metavar="AREA",
                        help="run only this area's checks (repeatable)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--timeout", type=seconds_option(0, 3600), default=10.0, metavar="SECONDS",
                        help="per-request budget for each live check (default: 10)")
    parser.add_argument("--endpoint", action="append", default=[], metavar="SERVICE=URL", type=endpoint,
                        help="ask SERVICE (ec2, service-quotas, azure) at URL instead of the cloud's own, e.g. a "
                             "stand-in on loopback (repeatable)")


def endpoint(text: str) -> tuple[str, str]:
    """--endpoint: SERVICE=URL with an http(s) URL."""
    from sahab.workloads.inputs import http_url_problem

    service, sep, url = text.partition("=")
    if not sep or not service or http_url_problem(url):
        raise argparse.ArgumentTypeError(f"{text!r} is not SERVICE=URL (e.g. azure=http://127.0.0.1:8443)")
    return service, url


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from sahab.components.fleet_config import parse_fleet
    from sahab.doctor import FAIL, DoctorContext, areas, run_checks
    from sahab.errors import UsageError
    from sahab.project import find_project, load_stack, project_dir

    known = {m.AREA for m in areas()}
    unknown = sorted(set(args.only) - known)
    if unknown:
        raise UsageError(f"--only: {', '.join(unknown)} is not an area; allowed: {', '.join(sorted(known))}")
    project = find_project(project_dir(args.program))
    stack = load_stack(project, args.stack)
    raw = stack.values.get("sahab:fleet")
    fleet = parse_fleet(json.loads(raw)) if raw is not None else None
    ctx = DoctorContext(project_dir=project.root, stack=args.stack, fleet=fleet,
                        config=dict(stack.values), timeout=args.timeout, endpoints=dict(args.endpoint))
    found = list(run_checks(ctx, args.only))
    if args.format == "json":
        from sahab.schema import versions

        print(json.dumps({**versions(), "stack": args.stack,
                          "checks": [c.contract() for c in found]}, indent=2))
    else:
        for c in found:
            line = f"{c.status:<4}  {c.area}: {c.name}: {c.detail}"
            if c.status == FAIL and c.remedy:
                line += f" -> {c.remedy}"
            print(line)
        if not found:
            print("no checks apply to this stack", file=sys.stderr)
    return 1 if any(c.status == FAIL for c in found) else 0

"""`sahab check`: the UAE residency and encryption policy pack, offline, over what `sahab plan` produces."""

from __future__ import annotations

import argparse

from sahab.commands.plan import stack_name

HELP = "Run the policy pack offline over a stack's planned resources (no cloud credentials, no Pulumi CLI)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sahab.workloads.inputs import input_file, seconds_option

    parser.add_argument("--stack", "-s", default="dev", type=stack_name,
                        help="stack name: reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="folder holding Pulumi.yaml (default: the nearest one from the current folder up)")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print only failures (mandatory violations; nothing when the stack passes) and no "
                             "progress line; --report files stay complete")
    parser.add_argument("--format", choices=("text", "json", "sarif", "junit"), default="text",
                        help="output format (default: text)")
    parser.add_argument("--output", "-o", metavar="FILE", default=None, help="write the report here (default: stdout)")
    parser.add_argument("--report", metavar="FORMAT=FILE", action="append", default=[],
                        help="also write the report in FORMAT (json, sarif, junit, text) to FILE; repeatable, so one "
                             "run gives every format")
    parser.add_argument("--policy-config", metavar="FILE", default=None, type=input_file("a policy config JSON file"),
                        help="enforcement levels and settings in the `pulumi preview --policy-pack-config` format, "
                             "over the pack's policies/config/<stack>.json; <program>/policies/config/<stack>.json "
                             "then applies too but may only narrow")
    parser.add_argument("--waivers", metavar="FILE", default=None, type=input_file("a waivers YAML file"),
                        help="waivers file (default: the pack's policies/waivers.yaml)")
    parser.add_argument("--timeout", type=seconds_option(0, 86400), metavar="SECONDS", default=None,
                        help="stop a program that runs longer (default: $SAHAB_PROGRAM_TIMEOUT or 300)")
    parser.add_argument("--isolated", action="store_true",
                        help="for CI on unreviewed code: run the program with Sahab's own interpreter (never a "
                             "virtualenv the program names), Sahab itself isolated (python -I) outside the program's "
                             "folder")
    parser.add_argument("--list-policies", action="store_true",
                        help="print the pack's rules (id, name, default enforcement, severity) and exit")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from sahab.engine import plan_phases
    from sahab.errors import UsageError
    from sahab.policy_check import check_plan, policy_config_layers, preload, stack_waivers
    from sahab.project import project_dir

    if args.list_policies:
        from sahab.policies.core import all_rules

        for rule in all_rules():
            print(f"{rule.id:<17} {rule.name:<58} {rule.enforcement.value:<9} {rule.severity.value:<8} {rule.title}")
        return 0
    if args.isolated and not sys.flags.isolated:
        return _run_isolated(args)

    from sahab.workloads.outputs import check_distinct, check_writable, write_atomic

    # Every destination is checked before the program runs: a bad one fails the run before any file is written.
    reports = []
    for spec in args.report:
        fmt, _, file = spec.partition("=")
        if fmt not in ("text", "json", "sarif", "junit") or not file:
            raise UsageError(f"--report {spec}: expected FORMAT=FILE with FORMAT one of text, json, sarif, junit")
        reports.append((fmt, Path(file)))
    check_distinct([*([(f"--output {args.output}", Path(args.output))] if args.output else []),
                    *((f"--report {spec}", Path(spec.partition("=")[2])) for spec in args.report)])
    for fmt, file in reports:
        check_writable(f"--report {fmt}", file, make_folders=False)
    if args.output:
        check_writable("--output", Path(args.output), make_folders=False)
    program_dir = project_dir(args.program)
    # The pack's own config, the operator's --policy-config, then the program folder's (which can only narrow).
    layers = policy_config_layers(program_dir, args.stack, args.policy_config)
    # Read once, before the program runs: a bad file fails at once, and the run is judged by the file read here.
    waivers = stack_waivers(args.stack, layers, args.waivers)

    from sahab.progress import spinner

    preload()
    from sahab import strays

    strays.adopt_orphans()  # what the program leaves running is ended before any report is written
    with spinner(f"checking {args.stack}", args.quiet) as progress:
        try:
            preview, update = plan_phases(program_dir, args.stack, timeout=args.timeout, isolated=args.isolated,
                                          on_resource=progress)
        finally:
            strays.end_orphans()
        result = check_plan(preview, layers, waivers=waivers, update=update)
    for warning in preview.notices:
        print(f"warning: {warning}", file=sys.stderr)

    text = _render(result, args.format, quiet=args.quiet)
    rendered = [(fmt, file, _render(result, fmt)) for fmt, file in reports]  # all rendered before any is written
    for fmt, file, report in rendered:
        try:
            write_atomic(file, report)
        except OSError as exc:
            raise UsageError(f"--report {fmt}={file}: {exc.strerror or exc}") from None

    if args.output:
        try:
            write_atomic(args.output, text)
        except OSError as exc:
            raise UsageError(f"--output {args.output}: {exc.strerror or exc}") from None
        if args.format != "text":
            s = result.summary()
            print(f"sahab check {s['stack']}: {s['mandatory']} mandatory, {s['advisory']} advisory, "
                  f"{s['waived']} waived -> {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return result.exit_code


def _run_isolated(args: argparse.Namespace) -> int:
    """Run this very check again as `python -I -m sahab check --isolated ...` from an empty folder: no
    PYTHONPATH, no user site, no current folder on Sahab's path, so nothing a pull request adds to its folder
    or environment can stand in for Sahab's own modules. Paths are made absolute first."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from sahab.project import project_dir

    def absolute(path: str | None) -> str | None:
        return str(Path(path).resolve()) if path else None

    argv = [sys.executable, "-I", "-m", "sahab", "check", "--isolated", "--stack", args.stack,
            "--program", str(project_dir(args.program).resolve()), "--format", args.format]
    for flag, value in (("--output", absolute(args.output)), ("--policy-config", absolute(args.policy_config)),
                        ("--waivers", absolute(args.waivers)),
                        ("--timeout", None if args.timeout is None else repr(args.timeout))):
        if value is not None:
            argv += [flag, value]
    for spec in args.report:
        fmt, _, file = spec.partition("=")
        argv += ["--report", f"{fmt}={absolute(file) if file else ''}"]
    if args.quiet:
        argv.append("--quiet")
    with tempfile.TemporaryDirectory(prefix="sahab-isolated-") as elsewhere:
        done = subprocess.run(argv, cwd=elsewhere, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    sys.stdout.write(done.stdout.decode("utf-8", "replace"))
    sys.stderr.write(done.stderr.decode("utf-8", "replace"))
    return done.returncode


def _render(result, fmt: str, quiet: bool = False) -> str:
    import json

    if fmt == "json":
        return json.dumps(result.contract(), indent=2) + "\n"
    if fmt == "sarif":
        from sahab.report_sarif import sarif

        return json.dumps(sarif(result), indent=2) + "\n"
    if fmt == "junit":
        from sahab.report_junit import junit

        return junit(result)
    import io

    from sahab.report_text import render_text

    buffer = io.StringIO()
    render_text(result, buffer, quiet=quiet)
    return buffer.getvalue()

"""`sahab audit aws`: what is really deployed, judged by the policy pack's own rules.

Exit 0 when nothing mandatory is found and every part of the account could be read; 1 on a mandatory finding
or on a scan error (an account the auditor could not fully read is not shown to comply); 2 on bad arguments,
credentials or the permission to list regions.
"""

from __future__ import annotations

import argparse
import re

HELP = "Audit a live AWS account (read-only) against the policy pack's residency and encryption rules."
DEFAULT_TIMEOUT_S = 900.0

CLOUDS = ("aws",)
AWS_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]+$")
ANY_REGION = re.compile(r"^[a-z0-9-]+$")  # AWS regions and Azure locations (uaenorth) alike


def _region_list(value: str) -> list[str]:
    return [v for v in re.split(r"[,\s]+", value.strip()) if v]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sahab.workloads.inputs import input_file

    parser.epilog = ("Read-only: the auditor needs exactly the actions in policies/iam/auditor-policy.json. "
                     "Exit 0 clean, 1 on a mandatory finding or a part of the account that could not be read, "
                     "2 on bad arguments or credentials.")
    # Optional to argparse only so the options may come first: `--regions me-central-1 aws` hands the cloud to
    # --regions (nargs="+"), and _cloud() takes it back; a missing cloud is still an error.
    parser.add_argument("cloud", nargs="?", choices=CLOUDS, metavar="cloud",
                        help="the cloud to audit (aws); options may come before or after it")
    parser.add_argument("--regions", nargs="+", metavar="REGION", default=None,
                        help="allowed regions; resources anywhere else are findings "
                             "(default: the pack's list, me-central-1 uaenorth uaecentral)")
    parser.add_argument("--scan-regions", nargs="+", metavar="REGION", default=None,
                        help="scan only these regions (default: every region enabled for the account)")
    parser.add_argument("--profile", default=None, help="AWS profile from the AWS config files")
    parser.add_argument("--endpoint-url", metavar="URL", default=None,
                        help="send every AWS call to this endpoint (e.g. a moto server on 127.0.0.1)")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                        help="report format on stdout (default: text)")
    parser.add_argument("--output", metavar="FILE", default=None, help="write the report to FILE instead of stdout")
    parser.add_argument("--evidence-dir", metavar="DIR", default=None,
                        help="where audit.json and audit.html go (default: ./sahab-evidence/<UTC time>/)")
    parser.add_argument("--evidence", metavar="FILE", default=None,
                        help="write the evidence JSON to FILE instead (its HTML page beside it, with .html): the "
                             "file `sahab evidence --audit FILE` merges into a stack's bundle")
    parser.add_argument("--waivers", metavar="FILE", default=None, type=input_file("a waivers YAML file"),
                        help="waivers file naming resources by ARN (default: policies/waivers.yaml)")
    parser.add_argument("--max-workers", type=int, default=16, metavar="N",
                        help="parallel API workers across regions and services (default: 16)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                        help="time budget of the whole audit; what is not read by then is reported unverified "
                             "(exit 1). Each call also gives up after 5 s without a connection or 10 s without an "
                             f"answer, after 3 attempts (default: {DEFAULT_TIMEOUT_S:g})")


def _cloud(args: argparse.Namespace) -> str:
    """The cloud, wherever it was typed: a list option (--regions, --scan-regions) just before it swallows it."""
    from sahab.errors import UsageError

    if args.cloud:
        return args.cloud
    for option in ("regions", "scan_regions"):
        values = getattr(args, option)
        if values and values[-1] in CLOUDS:
            args.cloud = values.pop()
            if not values:
                raise UsageError(f"--{option.replace('_', '-')}: expected at least one region before {args.cloud}")
            return args.cloud
    raise UsageError(f"the cloud to audit is missing; allowed: {', '.join(CLOUDS)} (e.g. sahab audit aws)")


def _validate(args: argparse.Namespace) -> tuple[list[str] | None, list[str] | None]:
    from sahab.errors import UsageError

    _cloud(args)
    allowed = [r for v in args.regions for r in _region_list(v)] if args.regions else None
    scan = [r for v in args.scan_regions for r in _region_list(v)] if args.scan_regions else None
    for region in allowed or []:
        if not ANY_REGION.match(region):
            raise UsageError(f"--regions: {region!r} is not a region name")
    for region in scan or []:
        if not AWS_REGION.match(region):
            raise UsageError(f"--scan-regions: {region!r} is not an AWS region name like me-central-1")
    if args.endpoint_url:
        from sahab.workloads.inputs import http_url_problem

        problem = http_url_problem(args.endpoint_url)
        if problem:
            raise UsageError(f"--endpoint-url: {problem}")
    if args.max_workers < 1:
        raise UsageError("--max-workers must be at least 1")
    if not args.timeout > 0 or args.timeout == float("inf"):
        raise UsageError(f"--timeout: {args.timeout:g} is not allowed; allowed: a positive number of seconds")
    return allowed, scan


def run(args: argparse.Namespace) -> int:
    import io
    import json
    import sys
    from pathlib import Path

    from rich.console import Console

    from sahab.audit.clients import CONNECT_TIMEOUT_S, MAX_ATTEMPTS, READ_TIMEOUT_S, ClientFactory
    from sahab.audit.evaluate import evaluate
    from sahab.audit.evidence import (
        default_dir,
        require_writable_dir,
        require_writable_file,
        write_evidence,
        write_evidence_file,
    )
    from sahab.audit.report import audit_document, passed, render_text, report_json, report_sarif
    from sahab.audit.scanner import ScanOptions, scan
    from sahab.errors import ConfigError, UsageError
    from sahab.policies.core import DEFAULT_ALLOWED_REGIONS
    from sahab.policies.waivers import DEFAULT_PATH, WaiverError, load_waivers
    from sahab.workloads.outputs import check_distinct

    allowed, scan_regions = _validate(args)
    allowed = allowed or list(DEFAULT_ALLOWED_REGIONS)
    # Outputs are checked before the scan, so a typo does not cost a whole scan.
    if args.output:
        require_writable_file(Path(args.output), "--output")
    if args.evidence:
        if args.evidence_dir:
            raise UsageError("--evidence and --evidence-dir: give one; --evidence names the JSON file itself")
        if Path(args.evidence).suffix.lower() in (".html", ".htm"):
            raise UsageError(f"--evidence {args.evidence}: the JSON file; its HTML page is written beside it")
        require_writable_file(Path(args.evidence), "--evidence")
        evidence = Path(args.evidence)
        check_distinct([*([(f"--output {args.output}", Path(args.output))] if args.output else []),
                        (f"--evidence {evidence}", evidence),
                        (f"--evidence {evidence} (its page {evidence.with_suffix('.html')})",
                         evidence.with_suffix(".html"))])
    else:
        require_writable_dir(Path(args.evidence_dir) if args.evidence_dir else Path.cwd() / "sahab-evidence",
                             "--evidence-dir")
    try:
        waivers = load_waivers(args.waivers)
    except WaiverError as exc:
        raise ConfigError(exc.path, exc.message) from None
    waivers_file = str(Path(args.waivers) if args.waivers else DEFAULT_PATH) if waivers or args.waivers else None

    # A call's attempts together stay within the budget, so even the first call cannot outlast it.
    per_attempt = args.timeout / MAX_ATTEMPTS
    clients = ClientFactory(profile=args.profile, endpoint_url=args.endpoint_url,
                            max_pool_connections=args.max_workers * 2,
                            connect_timeout=min(CONNECT_TIMEOUT_S, per_attempt),
                            read_timeout=min(READ_TIMEOUT_S, per_attempt))
    if scan_regions:
        clients.identity()  # credentials first: their error is the one to show
        enabled = set(clients.enabled_regions())
        unknown = [r for r in scan_regions if r not in enabled]
        if unknown:
            raise UsageError(f"--scan-regions: {', '.join(unknown)} not enabled for this account")
    options = ScanOptions(regions=scan_regions, allowed_regions=tuple(allowed), profile=args.profile,
                          endpoint_url=args.endpoint_url, max_workers=args.max_workers, time_budget_s=args.timeout)

    err = Console(stderr=True, highlight=False)
    with _progress(err) as progress:
        result = scan(options, clients, progress)
    evaluation = evaluate(result.resources, allowed, waivers)
    document = audit_document(result, evaluation, allowed, waivers_file)
    if args.evidence:
        json_path, html_path = write_evidence_file(document, Path(args.evidence))
    else:
        json_path, html_path = write_evidence(document, Path(args.evidence_dir) if args.evidence_dir
                                              else default_dir(result.started))
    print(f"evidence: {json_path} and {html_path}", file=sys.stderr)

    out = io.StringIO() if args.output else sys.stdout
    if args.format == "json":
        out.write(json.dumps(report_json(document), indent=2) + "\n")
    elif args.format == "sarif":
        out.write(json.dumps(report_sarif(document, json_path), indent=2) + "\n")
    else:
        render_text(document, Console(file=out, highlight=False, soft_wrap=True))
    if args.output:
        from sahab.workloads.outputs import write_atomic

        try:
            write_atomic(args.output, out.getvalue())
        except OSError as exc:
            raise UsageError(f"--output {args.output}: {exc.strerror or exc}") from None
    return 0 if passed(result, evaluation) else 1


class _progress:
    """A rich progress bar on stderr while the scan runs (only on a terminal)."""

    def __init__(self, console):
        self.console = console
        self.bar = None

    def __enter__(self):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        if not self.console.is_terminal:
            return None
        self.bar = Progress(TextColumn("scanning"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=self.console, transient=True)
        self.bar.start()
        task = self.bar.add_task("scan", total=None)

        def update(done: int, known: int) -> None:
            self.bar.update(task, completed=done, total=known)

        return update

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False

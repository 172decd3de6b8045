"""`node-validate` (`python -m workloads node-validate`, `sahab node-validate`): benchmark this node, record the
verdict on its Node (workloads/node_validation.py)."""

from __future__ import annotations

import argparse
import os
import re

from ..bench.validate import DEFAULT_TIME_BUDGET_S
from ..errors import UsageError, WorkloadError
from .bench import time_budget

HELP = "Benchmark this node (sahab bench) and record the verdict as its sahab.io/validation labels."
_DURATION = re.compile(r"^([0-9]+)([smhd])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


_MAX_DURATION_S = 365 * 86400


def _duration(text: str) -> float:
    match = _DURATION.fullmatch(text)
    seconds = int(match.group(1)) * _UNITS[match.group(2)] if match and len(text) <= 12 else 0
    if not 0 < seconds <= _MAX_DURATION_S:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; allowed: a positive duration up to 365d like "
                                         "90s, 15m, 24h or 7d (ASCII digits)")
    return seconds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..inputs import http_url_option, input_file

    parser.add_argument("--node", default=os.environ.get("NODE_NAME"),
                        help="the node this pod runs on (default: $NODE_NAME, from the pod's spec.nodeName)")
    parser.add_argument("--interval", type=_duration, default=_duration("24h"), metavar="DURATION",
                        help="re-validate a node that passed after this long (24h)")
    parser.add_argument("--retry-after", type=_duration, default=_duration("15m"), metavar="DURATION",
                        help="benchmark a failed, inconclusive or errored node again after this long (15m)")
    parser.add_argument("--poll", type=_duration, default=_duration("60s"), metavar="DURATION",
                        help="how often to look at the node for changes (60s)")
    parser.add_argument("--time-budget", type=time_budget, default=DEFAULT_TIME_BUDGET_S, metavar="SECONDS",
                        help="sahab bench's hard limit per run (%(default)g)")
    parser.add_argument("--baseline", type=input_file("a baseline JSON file (sahab bench --save-baseline)"),
                        metavar="FILE",
                        help="baseline for sahab bench (how CPU nodes are judged)")
    parser.add_argument("--watch", action="store_true",
                        help="never benchmark: only expire a pass that is due, so the validator returns")
    parser.add_argument("--once", action="store_true",
                        help="look once, validate if due, and exit with the bench's code (0 when not due)")
    parser.add_argument("--api-server", metavar="URL", type=http_url_option,
                        help="API server (default: the in-cluster one, with the pod's service-account token)")


def run(args: argparse.Namespace) -> int:
    from datetime import timedelta

    from ..node_validation import APIError, NodeAPI, Settings, round_once, serve

    if not args.node:
        raise UsageError("--node is required (or $NODE_NAME, set from the pod's spec.nodeName)")
    settings = Settings(node=args.node, interval=timedelta(seconds=args.interval),
                        retry_after=timedelta(seconds=args.retry_after), poll=args.poll,
                        time_budget=args.time_budget, baseline=args.baseline, watch=args.watch)
    try:
        api = NodeAPI(args.api_server) if args.api_server else NodeAPI.in_cluster()
        if not args.once:
            serve(api, settings)
        outcome = round_once(api, settings)
    except APIError as exc:
        raise WorkloadError(f"node {args.node}: {exc}") from None
    return 0 if outcome is None else outcome.exit_code

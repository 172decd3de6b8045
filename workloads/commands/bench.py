"""`bench` (`python -m workloads bench`, `sahab bench`): validate this node against what its hardware class must
deliver, or report on a fleet."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..bench.validate import DEFAULT_TIME_BUDGET_S
from ..errors import ConfigError, UsageError, WorkloadError
from ..inputs import file_problem, input_file
from ..outputs import check_distinct, check_writable, write_atomic
from ..schema import versions

HELP = "Validate this node (GEMM, memory, all-reduce, training step, data loader) against its floors."
# exit codes: 0 pass, 1 below a floor, 2 could not validate (usage), 3 inconclusive (node busy / budget spent)


def time_budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, not {text!r}") from None
    if not 5 <= value <= 3600:  # below 5 s not even the GEMM probes fit
        raise argparse.ArgumentTypeError(f"must be between 5 and 3600 seconds, not {text}")
    return value


def _probes(text: str) -> tuple[str, ...]:
    from ..bench.validate import PROBE_ORDER

    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in PROBE_ORDER]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"must name probes among {', '.join(PROBE_ORDER)}, not {text!r}")
    return names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (text)")
    parser.add_argument("--save-baseline", metavar="FILE", type=Path,
                        help="record this (known-good) node's results as the baseline for its class")
    parser.add_argument("--baseline", metavar="FILE", type=input_file("a baseline JSON file (--save-baseline)"),
                        help="judge against a baseline from known-good hardware (how CPU nodes are judged)")
    parser.add_argument("--output", metavar="FILE", type=Path, help="also write the JSON result to FILE")
    parser.add_argument("--time-budget", metavar="SECONDS", type=time_budget, default=DEFAULT_TIME_BUDGET_S,
                        help="hard limit on the whole validation; probes that do not fit are cut short and "
                             "the verdict is inconclusive (%(default)g)")
    parser.add_argument("--probes", metavar="NAMES", type=_probes, default=None,
                        help="comma-separated probes to run (default: all): gemm, gemm_fp32, memory_bandwidth, "
                             "allreduce, train_step, dataloader")
    parser.add_argument("--fleet-report", metavar="HTML", type=Path,
                        help="instead of measuring: write a fleet report from --results files")
    parser.add_argument("--results", metavar="JSON", type=Path, nargs="+", default=[],
                        help="per-node JSON results (from --format json or --output) for --fleet-report")


def run(args: argparse.Namespace) -> int:
    if args.fleet_report:
        return _fleet_report(args)
    if args.results:
        raise UsageError("--results is only used with --fleet-report")

    from ..bench.capability import injected_flags

    injected_flags()  # a bad SAHAB_CPU_FLAGS is refused before PyTorch loads (2.4 s of CPU)
    from rich.console import Console

    from ..bench.hardware_classes import UnknownHardware
    from ..bench.validate import BaselineError, exit_code, result_to_text, run_validation, save_baseline

    outputs = (("--output", args.output), ("--save-baseline", args.save_baseline))
    check_distinct((f"{option} {path}", path) for option, path in outputs)
    for option, path in outputs:
        check_writable(option, path)
    console = Console(stderr=True)
    try:
        with console.status("validating this node") as status:
            result = run_validation(args.baseline, on_probe=lambda name: status.update(f"probe: {name}"),
                                    time_budget=args.time_budget, **({"probes": args.probes} if args.probes else {}))
    except BaselineError as exc:
        raise ConfigError(f"--baseline {args.baseline}", str(exc).split(": ", 1)[-1]) from exc
    except UnknownHardware as exc:
        raise WorkloadError(str(exc).strip("'\"")) from exc
    if args.save_baseline and not result.measured_in_full:
        print(f"baseline not saved: a known-good baseline needs a conclusive run ({result.reason})",
              file=sys.stderr)
    elif args.save_baseline:
        save_baseline(result, args.save_baseline)
        print(f"baseline saved to {args.save_baseline}", file=sys.stderr)
    raw = {**versions(), **result.to_json()}
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(args.output, json.dumps(raw, indent=2) + "\n")
    if args.format == "json":
        print(json.dumps(raw))
    else:
        print(result_to_text(result))
    for failure in result.failures():
        print(f"failed: {failure}", file=sys.stderr)
    if result.verdict == "inconclusive":
        print(f"inconclusive: {result.reason}", file=sys.stderr)
    return exit_code(result)


def _fleet_report(args: argparse.Namespace) -> int:
    from ..bench.peer_outliers import failing_nodes, outliers
    from ..bench.report import write_report
    from ..bench.validate import NodeResult

    if not args.results:
        raise UsageError("--fleet-report needs --results FILE [FILE ...]")
    check_writable("--fleet-report", args.fleet_report)
    results = []
    for path in args.results:
        problem = file_problem(path)  # checked here, not by argparse: --results alone is a usage error first
        if problem:
            raise ConfigError(f"--results {path}", f"{problem}; expected a sahab bench JSON result")
        try:
            results.append(NodeResult.from_json(json.loads(path.read_text())))
        except OSError as exc:
            raise ConfigError(str(path), f"cannot read: {exc.strerror}") from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(str(path), f"not a sahab bench result ({exc})") from exc
    write_report(results, args.fleet_report)
    excluded = failing_nodes(results)
    for r in results:
        for failure in r.failures():
            print(f"failed: {r.node}: {failure}", file=sys.stderr)
    for o in outliers(results):
        print(f"outlier: {o.describe()}", file=sys.stderr)
    print(f"{len(results)} nodes, {len(excluded)} excluded; report written to {args.fleet_report}")
    return 1 if excluded else 0

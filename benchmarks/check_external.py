"""`sahab check` on every third-party program of the corpus (tests/e2e/corpus): time per program, as a user runs it.

Each program is checked --repeat times, each time as a fresh `sahab check --format json` process (what a
pull-request job runs); prints per program the median and worst wall-clock seconds and the CPU seconds of the
process and the program's own processes, then the median and worst over all programs. Wall time includes the
load other processes put on the machine; CPU seconds do not.

With `--baseline CHECKOUT` (another checkout of Sahab, e.g. a worktree of main), every run of this checkout is
paired with a run of that one on the same program, alternating, so both see the same load; it prints both
medians and their ratio.

    python benchmarks/check_external.py [--repeat 3] [--filter SUBSTRING] [--baseline CHECKOUT]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "e2e" / "corpus"


def programs(filter_: str | None) -> list[Path]:
    found = sorted(p.parent for p in CORPUS.rglob("SOURCE"))
    return [p for p in found if not filter_ or filter_ in str(p)]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_check(program: Path, checkout: Path) -> tuple[float, float, int]:
    """One `python -m sahab check` of `program` with the Sahab of `checkout` (its folder is the current one)."""
    cpu0, wall0 = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sahab", "check", "--program", str(program), "--stack", "dev",
                           "--format", "json"], capture_output=True, cwd=checkout, check=False)
    return time.perf_counter() - wall0, children_cpu() - cpu0, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--filter", default=None, help="only programs whose path contains this")
    parser.add_argument("--baseline", type=Path, default=None, metavar="CHECKOUT",
                        help="another checkout of Sahab to time alongside, run for run")
    args = parser.parse_args()
    found = programs(args.filter)
    if not found:
        print("error: no corpus program matches", file=sys.stderr)
        return 2
    if args.baseline is not None and not (args.baseline / "sahab" / "__main__.py").is_file():
        print(f"error: --baseline {args.baseline}: not a checkout of Sahab", file=sys.stderr)
        return 2
    checkouts = {"this": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    medians: dict[str, list[float]] = {k: [] for k in checkouts}
    worsts: dict[str, list[float]] = {k: [] for k in checkouts}
    cpus: dict[str, list[float]] = {k: [] for k in checkouts}
    columns = "".join(f" {label + ' s':>10} {label + ' cpu':>10}" for label in checkouts)
    print(f"{'program':<56} {'exit':>4}{columns}")
    for program in found:
        runs: dict[str, list[tuple[float, float, int]]] = {k: [] for k in checkouts}
        for _ in range(args.repeat):
            for label, checkout in checkouts.items():
                runs[label].append(time_check(program, checkout))
        line = f"{program.relative_to(CORPUS)!s:<56} {runs['this'][0][2]:>4}"
        for label in checkouts:
            walls = [w for w, _, _ in runs[label]]
            medians[label].append(statistics.median(walls))
            worsts[label].append(max(walls))
            cpus[label].append(statistics.median(c for _, c, _ in runs[label]))
            line += f" {medians[label][-1]:>10.2f} {cpus[label][-1]:>10.2f}"
        print(line)
    print()
    for label in checkouts:
        print(f"{label} ({checkouts[label]}): {len(found)} programs x {args.repeat} runs: median of medians "
              f"{statistics.median(medians[label]):.2f} s, worst median {max(medians[label]):.2f} s, worst run "
              f"{max(worsts[label]):.2f} s, median CPU {statistics.median(cpus[label]):.2f} s")
    if args.baseline:
        ratio = statistics.median(medians["this"]) / statistics.median(medians["baseline"])
        cpu_ratio = statistics.median(cpus["this"]) / statistics.median(cpus["baseline"])
        print(f"this / baseline: median wall {ratio:.2f}x, median CPU {cpu_ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

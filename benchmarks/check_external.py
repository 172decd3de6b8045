"""`sahab check` on every third-party program of the corpus (tests/corpus): time per program, as a user runs it.

Each program is checked --repeat times, each time as a fresh `sahab check --format json` process (what a
pull-request job runs); prints per program the median and worst wall-clock seconds and the CPU seconds of the
process and its worker, then the median and worst over all programs. Wall time includes the load other
processes put on the machine; CPU seconds do not.

    python benchmarks/check_external.py [--repeat 3] [--filter SUBSTRING]
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
CORPUS = ROOT / "tests" / "corpus"


def programs(filter_: str | None) -> list[Path]:
    found = sorted(p.parent for p in CORPUS.rglob("SOURCE"))
    return [p for p in found if not filter_ or filter_ in str(p)]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_check(program: Path) -> tuple[float, float, int]:
    cpu0, wall0 = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sahab", "check", "--program", str(program), "--stack", "dev",
                           "--format", "json"], capture_output=True, cwd=ROOT, check=False)
    return time.perf_counter() - wall0, children_cpu() - cpu0, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--filter", default=None, help="only programs whose path contains this")
    args = parser.parse_args()
    found = programs(args.filter)
    if not found:
        print("error: no corpus program matches", file=sys.stderr)
        return 2
    medians, worsts, cpus = [], [], []
    print(f"{'program':<62} {'exit':>4} {'median s':>9} {'worst s':>8} {'cpu s':>6}")
    for program in found:
        runs = [time_check(program) for _ in range(args.repeat)]
        walls = [w for w, _, _ in runs]
        cpu = statistics.median(c for _, c, _ in runs)
        medians.append(statistics.median(walls))
        worsts.append(max(walls))
        cpus.append(cpu)
        print(f"{program.relative_to(CORPUS)!s:<62} {runs[0][2]:>4} {medians[-1]:>9.2f} {worsts[-1]:>8.2f} "
              f"{cpu:>6.2f}")
    print(f"\n{len(found)} programs x {args.repeat} runs: median of medians {statistics.median(medians):.2f} s, "
          f"worst median {max(medians):.2f} s, worst run {max(worsts):.2f} s, "
          f"median CPU {statistics.median(cpus):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

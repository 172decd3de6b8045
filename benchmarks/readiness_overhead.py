"""What the readiness verdict adds to `sahab plan`: each stack planned once, then judged, timed apart.

Prints per stack the planned resources, the seconds to plan, the seconds to judge (best of 5) and the
judge's share of the total. Burst is also judged with the stack it references (prod), planned separately.

    .venv/bin/python benchmarks/readiness_overhead.py [--stacks dev prod burst smb]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sahab.engine import plan
from sahab.readiness import judge
from sahab.readiness.referenced import referenced_resources


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", nargs="+", default=["dev", "prod", "burst", "smb"])
    args = parser.parse_args()
    print(f"{'stack':<8}{'resources':>10}{'plan s':>9}{'refs s':>9}{'judge s':>9}{'judge %':>9}")
    for stack in args.stacks:
        start = time.perf_counter()
        result = plan(None, stack)
        planned = time.perf_counter() - start
        start = time.perf_counter()
        referenced, _ = referenced_resources(result)
        refs = time.perf_counter() - start
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            judge(result.resources, referenced)
            best = min(best, time.perf_counter() - start)
        total = planned + refs + best
        print(f"{stack:<8}{len(result.resources):>10}{planned:>9.2f}{refs:>9.2f}{best:>9.3f}"
              f"{100 * best / total:>8.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())

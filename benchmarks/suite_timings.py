"""Where the test suite's time goes: seconds per test directory (and the slowest modules) from pytest's JUnit XML.

Each test case's time is its setup, call and teardown, so a module or session fixture is counted in the first test
that needs it; that is where a shared plan or a shared converge shows up.

    .venv/bin/python -m pytest --junitxml=/tmp/suite.xml
    .venv/bin/python benchmarks/suite_timings.py /tmp/suite.xml [--modules 15] [--write-durations tests/durations.json]

`--write-durations` records seconds per test module (by file path) for the test scheduler (tests/conftest.py), which
hands the longest unit of work out first.
"""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from collections import Counter


def module_seconds(path: str) -> dict[str, float]:
    """Seconds per test module file (tests/.../test_x.py) of one JUnit XML report."""
    spent: Counter = Counter()
    for case in ET.parse(path).getroot().iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        test_module = next((i for i, part in enumerate(parts) if part.startswith("test_")), None)
        if test_module is not None:
            spent["/".join(parts[: test_module + 1]) + ".py"] += float(case.get("time") or 0)
    return {module: round(seconds, 1) for module, seconds in sorted(spent.items())}


def timings(path: str) -> tuple[Counter, Counter, Counter]:
    """(seconds per directory, tests per directory, seconds per module) of one JUnit XML report."""
    seconds, counts, modules = Counter(), Counter(), Counter()
    for case in ET.parse(path).getroot().iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        if parts[0] == "tests" and len(parts) > 1:
            parts = parts[1:]
        directory = parts[0] if len(parts) > 1 else "(top)"
        module = "/".join(p for p in parts if p.startswith("test_") or p == directory)
        spent = float(case.get("time") or 0)
        seconds[directory] += spent
        counts[directory] += 1
        modules[module] += spent
    return seconds, counts, modules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="pytest --junitxml output")
    parser.add_argument("--modules", type=int, default=15, help="how many of the slowest modules to list (15)")
    parser.add_argument("--write-durations", metavar="FILE", help="write seconds per test module to FILE (JSON)")
    args = parser.parse_args()
    if args.write_durations:
        with open(args.write_durations, "w", encoding="utf-8") as out:
            json.dump(module_seconds(args.report), out, indent=1)
            out.write("\n")
    seconds, counts, modules = timings(args.report)
    print(f"{'directory':<14}{'tests':>7}{'seconds':>10}")
    for directory, spent in seconds.most_common():
        print(f"{directory:<14}{counts[directory]:>7}{spent:>10.1f}")
    print(f"{'total':<14}{sum(counts.values()):>7}{sum(seconds.values()):>10.1f}")
    print(f"\nslowest modules\n{'module':<52}{'seconds':>10}")
    for module, spent in modules.most_common(args.modules):
        print(f"{module:<52}{spent:>10.1f}")


if __name__ == "__main__":
    main()

"""`python -m workloads.bench.peak RESULT.json`: print the per-device peak FLOP/s the trainer's MFU uses."""

from __future__ import annotations

import json
import sys

from .validate import NodeResult, peak_flops_from


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m workloads.bench.peak RESULT.json", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        peak = peak_flops_from(NodeResult.from_json(json.load(f)))
    if peak:
        print(repr(peak))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

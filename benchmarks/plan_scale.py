"""How plan time grows with fleet size: Sahab's own program, planned offline, on synthetic fleets.

Builds fleets of roughly 250, 1,000 and 4,000 resources (more node pools, buckets and teams on prod's
shape), plans each once in a fresh process (as `sahab plan` would run), and prints resources, seconds,
resources per second and the time ratio between consecutive sizes against the resource ratio.

    .venv/bin/python benchmarks/plan_scale.py [--targets 250 1000 4000]
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def scaled_fleet(k: int) -> dict:
    """prod's fleet with k times the cloud pools, buckets and teams (names kept unique)."""
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    fleet = copy.deepcopy(doc["config"]["sahab:fleet"])
    cloud_pools = [p for p in fleet["node_pools"] if not p.get("hosts")]
    onprem_pools = [p for p in fleet["node_pools"] if p.get("hosts")]
    fleet["node_pools"] = onprem_pools + [{**p, "name": f"{p['name']}-{i}"} for i in range(k) for p in cloud_pools]
    buckets = fleet["storage"]["buckets"]
    fleet["storage"]["buckets"] = [{**b, "name": f"{b['name']}{i}"} for i in range(k) for b in buckets]
    teams = fleet["workload"]["teams"]
    fleet["workload"]["teams"] = [{**t, "name": f"{t['name']}-{i}"} for i in range(k) for t in teams]
    return {"config": {**doc["config"], "sahab:fleet": fleet}}


def plan_once(program: Path, stack_doc: dict) -> tuple[int, float]:
    (program / "Pulumi.bench.yaml").write_text(yaml.safe_dump(stack_doc))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sahab", "plan", "--program", str(program), "--stack", "bench",
                           "--format", "json"], capture_output=True, text=True, cwd=ROOT, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"plan failed: {done.stderr.strip()}")
    return len(json.loads(done.stdout)["resources"]), elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, nargs="+", default=[250, 1000, 4000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp)
        (program / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {ROOT / 'stacks'}\n")
        # Resources grow linearly with k: measure k=1 and k=2 to find the per-k increment, then size each target.
        base, _ = plan_once(program, scaled_fleet(1))
        step = plan_once(program, scaled_fleet(2))[0] - base
        if step <= 0:
            raise SystemExit("the fleet does not grow with more pools/buckets/teams; nothing to measure")
        rows = []
        for target in args.targets:
            k = max(1, round((target - base) / step) + 1)
            n, seconds = plan_once(program, scaled_fleet(k))
            rows.append((target, k, n, seconds))
    print(f"{'target':>7} {'k':>4} {'resources':>10} {'seconds':>8} {'res/s':>7}")
    for target, k, n, seconds in rows:
        print(f"{target:>7} {k:>4} {n:>10} {seconds:>8.2f} {n / seconds:>7.0f}")
    for (_, _, n0, s0), (_, _, n1, s1) in itertools.pairwise(rows):
        print(f"{n0} -> {n1} resources: x{n1 / n0:.2f} resources, x{s1 / s0:.2f} time")
    return 0


if __name__ == "__main__":
    sys.exit(main())

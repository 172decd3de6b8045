"""`sahab init --bench`: `sahab bench` on every server over SSH, one after another (a benchmark needs its server
to itself), each one's verdict read from its JSON result (workloads.bench.validate.NodeResult, the bench's own
judgement) and a passing server's result saved as its class baseline beside the stack
(`stacks/<NAME>.baselines/<host>.json`, `sahab bench --baseline` reads it). A server that cannot run the bench
(no Sahab or torch installed there) is named with the reason and gets no baseline."""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from sahab.starter.propose import Proposal
from sahab.starter.ssh import SshTarget
from sahab.workloads.bench.validate import DEFAULT_TIME_BUDGET_S, HARD_LIMIT_FACTOR, NodeResult, save_baseline

NOT_INSTALLED = (126, 127)  # sh: found but not executable / not found


def baseline_dir(stack_file: Path, stack: str) -> Path:
    return stack_file.parent / f"{stack}.baselines"


def bench_host(target: SshTarget, command: str, budget: float = DEFAULT_TIME_BUDGET_S) -> tuple[NodeResult | None, str]:
    """(the bench's result when it gave one, why not when it did not). Its exit code says no more than the
    result's verdict does."""
    remote = f"{command} --format json --time-budget {budget:g}"
    try:
        done = target.run(remote, timeout=budget * HARD_LIMIT_FACTOR + 60)
    except subprocess.TimeoutExpired:
        return None, f"no result within {budget * HARD_LIMIT_FACTOR + 60:.0f} s"
    if done.returncode in NOT_INSTALLED:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return None, (f"`{shlex.split(command)[0]}` is not installed there ({last}); install Sahab "
                                       "with torch on the server, or name another runner with --bench-command")
    try:
        return NodeResult.from_json(json.loads(done.stdout)), ""
    except (ValueError, KeyError, TypeError):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"no bench result (exit {done.returncode}): {last}"


def bench_all(proposal: Proposal, targets: Sequence[SshTarget], command: str, stack_file: Path, out: TextIO) -> int:
    """Bench every server; 0 when every one passed and has its baseline, else 1."""
    folder = baseline_dir(stack_file, proposal.choices.name)
    classes = {h: pool.hardware_class for pool in proposal.pools for h in pool.hosts}
    verdict = 0
    print(f"benchmarking {len(targets)} server(s) with `{command}`, one at a time ...", file=out, flush=True)
    for plan, target in zip(proposal.hosts, targets, strict=True):
        result, why = bench_host(target, command)
        where = f"bench: host {plan.name} ({target.address})"
        if result is None:
            print(f"{where}: not benchmarked: {why}", file=out)
            verdict = 1
            continue
        expected = classes.get(plan.name)
        if expected and result.hardware_class != expected:
            print(f"{where}: the bench judged it as {result.hardware_class}, its pool as {expected}", file=out)
            verdict = 1
        if result.verdict == "pass":
            path = folder / f"{plan.name}.json"
            save_baseline(result, path)
            print(f"{where}: passed as {result.hardware_class} ({result.precision}); baseline {path}", file=out)
        elif result.verdict == "fail":
            failed = ", ".join(n for n, p in result.probes.items() if not p.passed and p.value is not None)
            print(f"{where}: below its class's floors ({result.hardware_class}) in {failed}: "
                  f"{'; '.join(result.failures())}", file=out)
            verdict = 1
        else:
            print(f"{where}: inconclusive: {result.reason}; no baseline (run `sahab init --bench` again when it "
                  "is idle)", file=out)
            verdict = 1
    return verdict

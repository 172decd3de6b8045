"""A validation told to terminate (a pod evicted or deleted, a caller's timeout) ends at once with a result.

Kubernetes sends SIGTERM to the container's PID 1, the image's entrypoint, and SIGKILL when the grace period is
over. The bench stops the probe it is running (its all-reduce ranks with it), starts no other, and writes the
inconclusive result that says why; the entrypoint passes the signal on to it instead of ignoring it as PID 1."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.workloads.workload_helpers import ROOT, sahab_env

pytestmark = pytest.mark.slow

SIGTERM_BIT = 1 << (signal.SIGTERM - 1)
ENDS_WITHIN_S = 20  # the probes' own torch calls are sized to their budgets: one finishes, none starts


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _ranks(pid: int) -> list[int]:
    """The all-reduce ranks among a process's children (multiprocessing's spawned workers, not its resource
    tracker, which leaves on its own once the bench has gone)."""
    ranks = []
    for child in _children(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                ranks.append(child)
        except OSError:
            pass
    return ranks


def _catches_sigterm(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught, 16) & SIGTERM_BIT)


def _until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] != "Z"
    except OSError:
        return False


def test_sigterm_mid_probe_stops_it_and_its_ranks_and_still_writes_the_result(tmp_path):
    output = tmp_path / "node.json"
    bench = subprocess.Popen(
        [sys.executable, "-m", "workloads", "bench", "--format", "json", "--output", str(output),
         "--probes", "allreduce,train_step", "--time-budget", "120"],
        cwd=ROOT, env=sahab_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        # The all-reduce runs its two ranks as child processes: once they exist, the probe is under way.
        _until(lambda: len(_ranks(bench.pid)) >= 2 or bench.poll() is not None, 90, "the all-reduce ranks start")
        ranks = _ranks(bench.pid)
        assert len(ranks) >= 2, "the bench ended before its all-reduce started"
        signalled = time.monotonic()
        bench.send_signal(signal.SIGTERM)
        out, err = bench.communicate(timeout=ENDS_WITHIN_S + 30)
        ended_after = time.monotonic() - signalled
    finally:
        bench.kill()
    assert bench.returncode == 3, err[-2000:]  # inconclusive: the node was not judged
    assert ended_after < ENDS_WITHIN_S
    assert not [rank for rank in ranks if _alive(rank)]  # no rank outlives the probe
    result = json.loads(out.strip().splitlines()[-1])
    assert result["verdict"] == "inconclusive" and result["stopped_by"] == "SIGTERM"
    assert result["reason"] == "stopped by SIGTERM: allreduce, train_step not measured"
    assert result["probes"]["allreduce"]["cut_short"] == "stopped by SIGTERM"
    assert result["probes"]["train_step"]["cut_short"] == "not started: stopped by SIGTERM"
    assert json.loads(output.read_text()) == result
    assert "inconclusive: stopped by SIGTERM" in err


def test_the_entrypoint_as_pid_1_passes_sigterm_to_the_bench_and_exits_with_its_result(tmp_path):
    result_file = tmp_path / "validation" / "node-0.json"
    env = sahab_env() | {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "SAHAB_CHECKPOINT_DIR": str(tmp_path),
        "SAHAB_BENCH_TIME_BUDGET": "120",
    }
    entrypoint = subprocess.Popen(["sh", str(ROOT / "workloads" / "entrypoint.sh"), "validate"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _until(lambda: any(_catches_sigterm(c) for c in _children(entrypoint.pid)) or entrypoint.poll() is not None,
               60, "the bench is ready for SIGTERM")
        entrypoint.send_signal(signal.SIGTERM)  # to the entrypoint alone, as the kubelet signals PID 1
        out, err = entrypoint.communicate(timeout=ENDS_WITHIN_S + 30)
    finally:
        entrypoint.kill()
    assert entrypoint.returncode == 3, err[-2000:]
    saved = json.loads(result_file.read_text())
    assert saved["stopped_by"] == "SIGTERM" and saved["verdict"] == "inconclusive"
    assert json.loads(out.strip().splitlines()[-1]) == saved


def test_a_stop_while_the_ranks_start_still_stops_every_rank_it_started(monkeypatch):
    """SIGTERM while the all-reduce's ranks are being started (once, under load, it came after both had been
    spawned but before they were handed back): the probe still stops every rank it started, so none is left
    waiting for its peer, and the bench is not held at exit waiting for it."""
    import torch.multiprocessing as mp

    from workloads.bench import probes
    from workloads.bench.timing import Stopped, Termination

    started = []
    start_processes = mp.start_processes

    def start_then_signalled(*args, **kwargs):
        context = start_processes(*args, **kwargs)
        started.extend(process.pid for process in context.processes)
        os.kill(os.getpid(), signal.SIGTERM)  # handled here, before the ranks are handed back
        return context

    monkeypatch.setattr(mp, "start_processes", start_then_signalled)
    with Termination() as termination, termination.probe(), pytest.raises(Stopped):
        probes.allreduce("cpu", cores=2, budget_s=60)
    assert len(started) == 2
    assert not [pid for pid in started if _alive(pid)]

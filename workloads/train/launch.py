"""Run the trainer locally under torchrun: N workers on this node, restarted as a group when one dies."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from ..bench.hardware_classes import cpu_count
from .config import TrainConfig
from .worker import PEAK_ENV, config_to_args

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def torchrun_command(cfg: TrainConfig, nproc: int, max_restarts: int) -> list[str]:
    """`torchrun --standalone`: a c10d rendezvous on this host, no external store."""
    return [
        sys.executable, "-m", "torch.distributed.run",
        "--standalone", "--nnodes=1", f"--nproc-per-node={nproc}",
        f"--max-restarts={max_restarts}", "--monitor-interval=0.2",
        "-m", "workloads.train", *config_to_args(cfg),
    ]  # fmt: skip


class TrainingFailed(RuntimeError):
    pass


def run_torchrun(
    cfg: TrainConfig,
    nproc: int,
    max_restarts: int,
    peak_flops: float | None = None,
    on_event: Callable[[dict], None] | None = None,
) -> dict:
    """Launch, stream the workers' JSON events to `on_event`, and return rank 0's summary."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    # torchrun would give every worker one OpenMP thread; the worker sets its share itself, say so up front
    env.setdefault("OMP_NUM_THREADS", str(max(1, cpu_count() // nproc)))
    if peak_flops:
        env[PEAK_ENV] = repr(peak_flops)
    # A fresh store for each rendezvous round, as the image's entrypoint asks too: with torchrun's shared store a
    # restarted group can read the address a killed worker published in the last round and wait on it (gloo:
    # "connection refused", then a failed run). workloads/train/distributed.py relies on it.
    env["TORCH_DISABLE_SHARE_RDZV_TCP_STORE"] = "1"
    summary = None
    proc = subprocess.Popen(
        torchrun_command(cfg, nproc, max_restarts), env=env, stdout=subprocess.PIPE, text=True, bufsize=1,
        preexec_fn=_die_with_parent,
    )
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            event = _parse_event(line)
            if event is None:
                sys.stderr.write(line)  # anything else a worker printed
                continue
            if event["event"] == "summary":
                summary = {k: v for k, v in event.items() if k != "event"}
            if on_event:
                on_event(event)
        code = proc.wait()
    finally:
        if proc.poll() is None:  # interrupted: torchrun passes SIGTERM on to its workers
            proc.terminate()
            proc.wait()
    if code != 0 or summary is None:
        raise TrainingFailed(f"torchrun exited with code {code}" + ("" if summary else " without a summary"))
    return summary


def _die_with_parent() -> None:
    """In the torchrun child: get SIGTERM if the launcher dies, so no orphaned workers keep training."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass  # not Linux/glibc: the finally clause in run_torchrun still covers ordinary exits


def _parse_event(line: str) -> dict | None:
    if not line.startswith("{"):
        return None
    try:
        event = json.loads(line)
    except json.JSONDecodeError:
        return None
    return event if isinstance(event, dict) and "event" in event else None

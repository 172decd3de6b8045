"""`sahab train` end to end under torchrun with two gloo workers, including losing one mid-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sahab.workloads.train.checkpoint import available_steps
from sahab.workloads.train.config import ModelConfig
from sahab.workloads.train.flops import flops_per_token

from sahab.schema import SCHEMA_VERSION
from tests.workloads.workload_helpers import ROOT, sahab_env

pytestmark = [pytest.mark.torchrun, pytest.mark.slow]

TINY = ["--d-model", "64", "--n-layers", "2", "--n-heads", "2", "--seq-len", "32", "--batch-size", "8"]
AVX2_ONLY = {"SAHAB_CPU_FLAGS": "sse4_2 avx avx2 fma"}


def _children(pid: int) -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def training_workers(root_pid: int) -> list[int]:
    """PIDs of the torchrun workers below `root_pid` (not torchrun itself)."""
    tree, found, stack = _children(root_pid), [], [root_pid]
    while stack:
        for child in tree.get(stack.pop(), []):
            stack.append(child)
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            # `-m workloads.train` from the checkout, `-m sahab.workloads.train` when launched through sahab
            if any(part.endswith(b"workloads.train") for part in cmdline) and b"torch.distributed.run" not in cmdline:
                found.append(child)
    return found


def test_a_killed_worker_costs_only_the_steps_since_the_last_checkpoint(tmp_path):
    ckpt = tmp_path / "ckpt"
    steps, every = 100, 10
    proc = subprocess.Popen(
        [sys.executable, "-m", "sahab", "train", "--nproc", "2", "--steps", str(steps),
         "--checkpoint-every", str(every), "--checkpoint-dir", str(ckpt), "--max-restarts", "2",
         "--skip-validation", "--format", "json", *TINY],
        cwd=ROOT, env=sahab_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while not available_steps(ckpt) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = training_workers(proc.pid)
        assert len(workers) == 2, "expected two torchrun workers once the first checkpoint is written"
        saved_before_kill = available_steps(ckpt)[-1]
        os.kill(workers[-1], signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # the whole session: launcher, torchrun and its workers
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)
    assert proc.returncode == 0, err[-2000:]
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["steps"] == steps
    assert summary["restarts"] >= 1
    # the restarted group resumed from a checkpoint written before or just after the kill, not from zero
    resumed = summary["resumed_from"]
    assert resumed >= saved_before_kill >= every and resumed % every == 0 and resumed < steps
    assert summary["final_loss"] < summary["first_loss"]
    assert set(summary["model"]) == {"n_params", "n_layers", "n_heads", "d_model", "seq_len", "vocab_size",
                                     "batch_size"}
    assert available_steps(ckpt)[-1] == steps


def test_train_summary_is_one_json_line_and_a_rerun_resumes_from_the_end(tmp_path, run_sahab):
    """On an AVX2-only CPU (injected): fp32 throughout. MFU against the peak the user gave (SAHAB_PEAK_FLOPS, per
    node on a CPU), which `sahab train` then does not measure."""
    given = {**AVX2_ONLY, "SAHAB_PEAK_FLOPS": "2e11"}
    args = ["train", "--nproc", "2", "--steps", "12", "--checkpoint-every", "5", "--checkpoint-dir",
            str(tmp_path), "--skip-validation", "--format", "json", *TINY]
    first = run_sahab(*args, env=given)
    assert first.returncode == 0, first.stderr[-2000:]
    lines = first.stdout.strip().splitlines()
    assert len(lines) == 1
    summary = json.loads(lines[0])
    assert summary["schemaVersion"] == SCHEMA_VERSION and summary["precision"] == "fp32"
    assert summary["steps"] == 12 and summary["restarts"] == 0 and summary["resumed_from"] == 0
    assert summary["tokens_per_s"] > 0 and 0 < summary["mfu"] < 1
    shape = {k: summary["model"][k] for k in ("n_layers", "n_heads", "d_model", "seq_len", "vocab_size")}
    expected = summary["tokens_per_s"] * flops_per_token(ModelConfig(**shape)) / 2e11
    assert summary["mfu"] == pytest.approx(expected, abs=1e-4)  # rounded to 4 places
    assert summary["model"]["batch_size"] == 16  # 8 sequences on each of 2 workers
    assert available_steps(tmp_path) == [10, 12]

    longer = run_sahab(*[a if a != "12" else "15" for a in args], env=given)
    assert longer.returncode == 0, longer.stderr[-2000:]
    resumed = json.loads(longer.stdout.strip().splitlines()[-1])
    assert resumed["resumed_from"] == 12 and resumed["steps"] == 15
    assert resumed["first_loss"] == summary["first_loss"]

    wider = run_sahab(*[a if a != "64" else "128" for a in args])  # another model, same directory
    assert wider.returncode == 2
    assert wider.stderr.strip().splitlines()[-1].startswith("error:") and "different model" in wider.stderr


def test_train_rejects_a_model_shape_that_cannot_exist(run_sahab):
    result = run_sahab("train", "--d-model", "100", "--n-heads", "3", "--skip-validation")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("error:")
    assert "divisible" in result.stderr

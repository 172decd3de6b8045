"""The checks only a GPU machine can run, in one table: run it on the first GPU machine Sahab gets.

    python benchmarks/gpu_ready.py [--image-gcc gcc] [--skip-mfu]

Rows:
  - the image's toolchain: `gcc --version` and the NCCL version torch was built with (torch.cuda.nccl.version());
  - NCCL all-reduce between two GPUs, with /dev/shm as mounted and with NCCL's shared-memory transport off
    (NCCL_SHM_DISABLE=1), so a pod whose /dev/shm is too small shows as the gap between the two;
  - `sahab bench` on this node: its class (from get_device_properties), verdict and each probe against its floor;
  - MFU of each model preset (workloads/train/presets.py) for a few steps on GPU 0, against the class's peak.
Exit 0 when every check ran, 1 when one failed, 2 with no GPU (nothing here can be checked).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _row(check: str, result: str, detail: str = "") -> tuple[str, str, str]:
    return check, result, detail


def toolchain(gcc: str) -> list[tuple[str, str, str]]:
    import torch

    rows = []
    try:
        first = subprocess.run([gcc, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
        rows.append(_row("image gcc", "ok", first))
    except (OSError, subprocess.CalledProcessError) as exc:
        rows.append(_row("image gcc", "FAIL", str(exc)))
    nccl = ".".join(map(str, torch.cuda.nccl.version()))
    rows.append(_row("torch NCCL", "ok", f"NCCL {nccl}, torch {torch.__version__}, CUDA {torch.version.cuda}"))
    return rows


def nccl_pair(shm: bool) -> tuple[str, str, str]:
    """Two local ranks on GPUs 0 and 1: all-reduce bus bandwidth (sahab bench's probe, NCCL)."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="0,1", PYTHONPATH=str(ROOT))
    if not shm:
        env["NCCL_SHM_DISABLE"] = "1"
    code = ("import json; from workloads.bench.probes import allreduce; "
            "m = allreduce('cuda', 2, budget_s=60); print(json.dumps([m.value, m.extra]))")
    name = f"NCCL 2-GPU all-reduce, {'/dev/shm' if shm else 'no shared memory'}"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180)
    if done.returncode:
        return _row(name, "FAIL", (done.stderr.strip().splitlines() or ["no output"])[-1])
    value, extra = json.loads(done.stdout.strip().splitlines()[-1])
    return _row(name, "ok" if value else "FAIL", f"{value:.1f} GB/s bus bandwidth" if value else str(extra))


def bench() -> tuple[str, str, str]:
    done = subprocess.run([sys.executable, "-m", "sahab", "bench", "--format", "json", "--time-budget", "120"],
                          cwd=ROOT, capture_output=True, text=True, timeout=400)
    try:
        out = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return _row("sahab bench", "FAIL", (done.stderr.strip().splitlines() or ["no output"])[-1])
    probes = ", ".join(f"{n} {p['value']:.4g}/{p['floor']:.4g}" if p["value"] and p["floor"] else f"{n} n/a"
                       for n, p in out["probes"].items())
    return _row(f"sahab bench ({out['hardware_class']})", out["verdict"], probes)


def preset_mfu(name: str, steps: int = 6) -> tuple[str, str, str]:
    import dataclasses

    import torch
    from sahab.workloads.bench.capability import detect, peak_flops
    from sahab.workloads.train.config import TrainConfig
    from sahab.workloads.train.distributed import DistEnv
    from sahab.workloads.train.flops import mfu
    from sahab.workloads.train.presets import PRESETS
    from sahab.workloads.train.trainer import Trainer

    model, batch = PRESETS[name]
    cap = detect()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = dataclasses.replace(TrainConfig(), model=model, batch_size=batch, checkpoint_every=0,
                                  checkpoint_dir=tmp, steps=10**6)
        try:
            trainer = Trainer(cfg, DistEnv(0, 0, 1, 1, 0, torch.device("cuda", 0)), None)
            for step in range(2):
                trainer._run_batch(step)
            torch.cuda.synchronize()
            start = time.perf_counter()
            for step in range(2, 2 + steps):
                trainer._run_batch(step)
            torch.cuda.synchronize()
        except torch.cuda.OutOfMemoryError:
            return _row(f"MFU preset {name}", "FAIL", f"out of memory on {cap.hardware_class}")
    tokens_per_s = cfg.tokens_per_step_per_worker * steps / (time.perf_counter() - start)
    utilisation = mfu(tokens_per_s, model, peak_flops(trainer.precision))
    return _row(f"MFU preset {name}", "ok", f"{utilisation:.2f} of the {cap.hardware_class} {trainer.precision} "
                                            f"peak, {tokens_per_s:,.0f} tokens/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image-gcc", default="gcc", help="the compiler the image's torch.compile uses (gcc)")
    parser.add_argument("--skip-mfu", action="store_true")
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("error: no GPU is present on this machine (torch.cuda.is_available() is false): none of the GPU "
              "checks (NCCL with and without /dev/shm, sahab bench per class, preset MFU, the image's gcc and "
              "NCCL) can run here", file=sys.stderr)
        return 2
    rows = toolchain(args.image_gcc)
    if torch.cuda.device_count() >= 2:
        rows += [nccl_pair(shm=True), nccl_pair(shm=False)]
    else:
        rows.append(_row("NCCL 2-GPU all-reduce", "skipped", "one GPU"))
    rows.append(bench())
    if not args.skip_mfu:
        from sahab.workloads.train.presets import PRESETS

        rows += [preset_mfu(name) for name in PRESETS]
    width = max(len(r[0]) for r in rows)
    for check, result, detail in rows:
        print(f"{check:<{width}}  {result:<8}  {detail}")
    return 1 if any(r[1] in ("FAIL", "fail") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

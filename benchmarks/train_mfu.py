"""MFU and throughput of the bundled trainer on this CPU, against the machine's own measured GEMM peak in the
precision the trainer uses (bf16 where the CPU has a native bf16 path, else fp32: workloads.bench.capability).

One run, in rounds, so a noisy neighbour hits every figure alike. Each round measures
  - the GEMM peak in that precision (`sahab bench`'s gemm probe: best rate over a few shapes),
  - a plain fp32 PyTorch loop of the same model shape: the same GPT module, eager fp32, `torch.optim.AdamW`
    with its defaults, torch's default threads, no autocast, no compile,
  - the Trainer's step with the loss read on the host every step (the loop before issue 38), against the
    Trainer's step as it is now (loss left on the device, read at log_every),
  - the Trainer exactly as a torchrun worker runs it (its `_run_batch`: bf16 autocast where the CPU has
    AVX512-BF16/AMX, fused AdamW, gradient clipping, torch.compile), one worker owning every core.
SAHAB_CPU_FLAGS="avx2 fma" runs it as an AVX2-only CPU would (fp32 throughout).
Figures are best-of-rounds for all three (interference only ever slows a run; the same statistic on every
side keeps the ratios fair); medians are printed too. MFU = trainer tokens/s x FLOPs/token / peak.

    /work/main/.venv/bin/python benchmarks/train_mfu.py [--d-model 1024 --n-layers 4 --seq-len 128 \
        --batch-size 16 --rounds 5]

GPU targets (same code, not runnable here): MFU >= 0.45 on H100-class against the catalog's dense bf16 peak.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class PlainFp32Loop:
    """The textbook loop: forward, backward, AdamW step, eager fp32."""

    def __init__(self, model_cfg, batch_size: int):
        import torch
        from sahab.workloads.train.data import default_batches
        from sahab.workloads.train.model import GPT

        torch.manual_seed(0)
        self.model = GPT(model_cfg)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=3e-4)
        self.batches = default_batches(model_cfg.seq_len, batch_size, seed=0)

    def step(self, step: int) -> None:
        x, y = self.batches.batch(step)
        _, loss = self.model(x, y)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()


def timed(fn, steps: int) -> list[float]:
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d-model", type=int, default=1024)
    parser.add_argument("--n-layers", type=int, default=4)
    parser.add_argument("--n-heads", type=int, default=16)
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3, help="steps of each loop per round")
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--precision", default="auto", choices=("auto", "bf16", "fp16", "fp32"))
    args = parser.parse_args()

    import torch
    from sahab.workloads.bench.capability import detect
    from sahab.workloads.bench.gemm import gemm_flops
    from sahab.workloads.bench.hardware_classes import cpu_count, cpu_model
    from sahab.workloads.train.config import ModelConfig, TrainConfig
    from sahab.workloads.train.distributed import DistEnv
    from sahab.workloads.train.flops import flops_per_token
    from sahab.workloads.train.trainer import Trainer
    from sahab.workloads.train.worker import set_threads

    model_cfg = ModelConfig(d_model=args.d_model, n_layers=args.n_layers, n_heads=args.n_heads,
                            seq_len=args.seq_len)
    tokens_per_step = args.batch_size * args.seq_len
    fpt = flops_per_token(model_cfg)
    cap = detect()
    print(f"machine: {cpu_count()} x {cpu_model()}, class {cap.hardware_class}, precision {cap.precision} "
          f"({cap.detail}), torch {torch.__version__}")
    print(f"model: d_model {args.d_model}, {args.n_layers} layers, {args.n_heads} heads, seq {args.seq_len}, "
          f"batch {args.batch_size}: {fpt / 1e6:.1f} MFLOP/token")

    with tempfile.TemporaryDirectory(prefix="sahab-mfu-") as tmp:
        cfg = TrainConfig(model=model_cfg, batch_size=args.batch_size, steps=10**6, checkpoint_every=0,
                          checkpoint_dir=tmp, compile=not args.no_compile, precision=args.precision)
        threads = set_threads(cfg, local_world_size=1)  # what the worker does: every core, one worker
        trainer = Trainer(cfg, DistEnv(0, 0, 1, 1, 0, torch.device("cpu")), peak_flops=None)
        started = time.perf_counter()
        trainer._run_batch(0)
        trainer._run_batch(1)  # compile, oneDNN primitive creation, optimizer state
        print(f"trainer: {trainer.precision}, compile={cfg.compile}, {threads} threads; "
              f"warm-up {time.perf_counter() - started:.0f} s")
        precision = trainer.precision
    plain = PlainFp32Loop(model_cfg, args.batch_size)
    plain.step(0)

    peaks, plain_times, trainer_times, waiting_times = [], [], [], []
    step = iter(range(2, 10**6))
    for r in range(args.rounds):
        peaks.append(gemm_flops(precision, budget_s=1.5))
        plain_times += timed(lambda: plain.step(next(step)), args.steps)
        trainer_times += timed(lambda: trainer._run_batch(next(step)), args.steps)
        # the loop as it was: the host reads the loss every step (float(loss): it waits for the device)
        waiting_times += timed(lambda: float(trainer._run_batch(next(step))), args.steps)
        print(f"round {r + 1}: {precision} peak {peaks[-1] / 1e9:.0f} GFLOP/s, fp32 loop "
              f"{tokens_per_step / min(plain_times[-args.steps:]):,.0f} tok/s, trainer "
              f"{tokens_per_step / min(trainer_times[-args.steps:]):,.0f} tok/s", flush=True)

    peak = max(peaks)
    trainer_tps = tokens_per_step / min(trainer_times)
    plain_tps = tokens_per_step / min(plain_times)
    median_trainer = tokens_per_step / statistics.median(trainer_times)
    median_plain = tokens_per_step / statistics.median(plain_times)
    result = {
        "hardware_class": cap.hardware_class,
        "precision": precision,
        "peak_gflops": round(peak / 1e9, 1),
        "trainer_tokens_per_s": round(trainer_tps, 1),
        "fp32_loop_tokens_per_s": round(plain_tps, 1),
        "speedup_vs_fp32_loop": round(trainer_tps / plain_tps, 2),
        "loss_read_every_step_tokens_per_s": round(tokens_per_step / min(waiting_times), 1),
        "mfu": round(trainer_tps * fpt / peak, 3),
        "median_speedup": round(median_trainer / median_plain, 2),
        "median_mfu": round(median_trainer * fpt / statistics.median(peaks), 3),
    }
    print(f"MFU {result['mfu']:.2f} of the measured {precision} peak (target >= 0.40); "
          f"{result['speedup_vs_fp32_loop']:.2f}x the plain fp32 loop (target >= 2); "
          f"medians: MFU {result['median_mfu']:.2f}, {result['median_speedup']:.2f}x")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The probes: each measures one thing a training node must deliver and returns a value with its unit.

Floors and verdicts are not decided here (see validate.py); a probe only measures, as fast as it can
while still being a fair measurement (best of several repeats, see timing.py). Every probe takes a time
budget and keeps it on any CPU: work that would not fit is cut short and says so (`extra["cut_short"]`,
value None), never left running for minutes.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import tempfile
import time
from dataclasses import dataclass, field

import torch

from .gemm import measure_gemm
from .timing import best_time, no_sync, shielded


@dataclass
class Measurement:
    value: float | None
    unit: str
    extra: dict = field(default_factory=dict)  # context shown next to the value (MFU, sizes, ranks)


def _sync_for(device: str):
    """Waits for `device`'s queued work (its own device: a bare synchronize() waits on the current one only)."""
    if device.startswith("cuda"):
        return lambda: torch.cuda.synchronize(device)
    return no_sync


def cut_short(unit: str, why: str, **extra) -> Measurement:
    return Measurement(None, unit, {"cut_short": why, **extra})


def gemm(precision: str, device: str, threads: int, budget_s: float = 3.0) -> Measurement:
    rate = measure_gemm(precision, device, budget_s)
    extra = {"precision": precision, "threads": threads}
    if rate.shapes_skipped:
        extra["shapes_skipped"] = rate.shapes_skipped  # a call at that size would have broken the budget
    return Measurement(rate.flops / 1e9, "GFLOP/s", extra)


def memory_bandwidth(device: str, nbytes: int | None = None, budget_s: float = 1.5) -> Measurement:
    """Device copy: reads and writes `nbytes` each, so 2 x bytes / time. Sized far past the caches."""
    deadline = time.perf_counter() + budget_s
    nbytes = nbytes or (1 << 30 if device.startswith("cuda") else 256 << 20)
    src = torch.empty(nbytes, dtype=torch.uint8, device=device).fill_(1)
    dst = torch.empty_like(src)
    seconds = best_time(lambda: dst.copy_(src), _sync_for(device), budget_s=0.6, deadline=deadline)
    return Measurement(2 * nbytes / seconds / 1e9, "GB/s", {"bytes": nbytes})


# -- all-reduce ------------------------------------------------------------------------------------------


def bus_bandwidth(nbytes: int, seconds: float, ranks: int) -> float:
    """nccl-tests' bus bandwidth for all-reduce: algbw x 2(n-1)/n, comparable across rank counts."""
    return nbytes / seconds * 2 * (ranks - 1) / ranks


def _allreduce_seconds(nbytes: int, device: str, budget_s: float, min_reps: int = 3) -> float:
    """Best time of one all-reduce of `nbytes`. Every rank must issue the same collectives, so whether to
    go on is agreed after each repeat (a rank's own clock alone would let one rank stop while another
    waits on it: gloo reports that as a size mismatch and aborts)."""
    import torch.distributed as dist

    sync = _sync_for(device)
    tensor = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    dist.all_reduce(tensor)  # warm-up: connections, buffers
    sync()
    best, reps = float("inf"), 0
    deadline = time.perf_counter() + budget_s
    while True:
        start = time.perf_counter()
        dist.all_reduce(tensor)
        sync()
        best = min(best, time.perf_counter() - start)
        reps += 1
        more = torch.tensor([1.0 if reps < min_reps or time.perf_counter() < deadline else 0.0], device=device)
        dist.all_reduce(more, op=dist.ReduceOp.MIN)
        if not more.item():
            break
    # every rank must agree on the figure: the slowest rank's best is the collective's best
    result = torch.tensor([best], dtype=torch.float64, device=device)
    dist.all_reduce(result, op=dist.ReduceOp.MAX)
    return result.item()


def _allreduce_rank(rank: int, ranks: int, port: int, nbytes: int, threads: int, out_path: str) -> None:
    import torch.distributed as dist

    torch.set_num_threads(threads)
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(rank)
    dist.init_process_group(
        "nccl" if cuda else "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=ranks
    )
    try:
        seconds = _allreduce_seconds(nbytes, f"cuda:{rank}" if cuda else "cpu", budget_s=1.0)
        if rank == 0:
            with open(out_path, "w") as f:
                f.write(repr(seconds))
    finally:
        dist.destroy_process_group()


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def allreduce(device: str, cores: int, budget_s: float = 20.0) -> Measurement:
    """Bus bandwidth of torch.distributed all-reduce: over the running group if there is one, else over
    several local ranks on loopback (one per GPU; two on a CPU node), gloo on CPU and NCCL on GPU.
    Local ranks that have not finished within `budget_s` (start-up included) are stopped."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        ranks = dist.get_world_size()
        nbytes = (256 << 20) if device.startswith("cuda") else (16 << 20)
        seconds = _allreduce_seconds(nbytes, device, budget_s=1.0)
        busbw = bus_bandwidth(nbytes, seconds, ranks) / 1e9
        return Measurement(busbw, "GB/s", {"ranks": ranks, "bytes": nbytes})
    ranks = torch.cuda.device_count() if device.startswith("cuda") else 2
    if ranks < 2:
        return Measurement(None, "GB/s", {"ranks": ranks, "note": "one device: nothing to all-reduce with"})
    nbytes = (256 << 20) if device.startswith("cuda") else (16 << 20)
    threads = max(1, cores // ranks)
    import torch.multiprocessing as mp

    backend = "nccl" if device.startswith("cuda") else "gloo"
    deadline = time.perf_counter() + budget_s
    with tempfile.TemporaryDirectory(prefix="sahab-allreduce-") as tmp:
        out_path = os.path.join(tmp, "seconds")
        context = None
        try:
            # A stop while the ranks start waits until every one is known: a rank started but not yet handed
            # back would wait for its peer forever, and the bench with it, at exit. Daemonic: none outlives it.
            with shielded():
                context = mp.start_processes(
                    _allreduce_rank,
                    args=(ranks, _free_loopback_port(), nbytes, threads, out_path),
                    nprocs=ranks,
                    join=False,
                    daemon=True,
                    start_method="spawn",
                )
            while not context.join(timeout=max(0.0, min(0.2, deadline - time.perf_counter()))):
                if time.perf_counter() >= deadline:
                    return cut_short("GB/s", f"ranks not done within {budget_s:.0f} s", ranks=ranks,
                                     backend=backend)
        finally:  # on the way out for any reason (its budget, a hard stop), no rank outlives the probe
            for process in context.processes if context else ():
                if process.is_alive():
                    process.kill()
                    process.join()
        with open(out_path) as f:
            seconds = float(f.read())
    busbw = bus_bandwidth(nbytes, seconds, ranks) / 1e9
    return Measurement(busbw, "GB/s", {"ranks": ranks, "bytes": nbytes, "backend": backend})


# -- the training model ----------------------------------------------------------------------------------


def probe_train_config(device: str, rehearsal: bool = False):
    """A model sized so a few steps take about a second: small on CPU, large enough to load a GPU. A rehearsal
    (a GPU class's probes on a CPU, from recorded GPU properties) runs a tiny one: it exercises the class's
    precision path (fp16 and its gradient scaler on a T4), which a CPU without that native path runs ~40x slower."""
    from ..train.config import ModelConfig, TrainConfig

    if rehearsal:
        model = ModelConfig(vocab_size=64, seq_len=64, n_layers=2, n_heads=2, d_model=64)
        return TrainConfig(model=model, batch_size=4, steps=1000, checkpoint_every=0)
    if device.startswith("cuda"):
        model = ModelConfig(vocab_size=64, seq_len=1024, n_layers=8, n_heads=16, d_model=1024)
        return TrainConfig(model=model, batch_size=8, steps=1000, checkpoint_every=0)
    # ~21 GFLOP a step: under a second even in fp32 on one AVX2 core
    model = ModelConfig(vocab_size=64, seq_len=128, n_layers=4, n_heads=4, d_model=256)
    return TrainConfig(model=model, batch_size=8, steps=1000, checkpoint_every=0)


# a training step takes about this many times its model FLOPs at the measured GEMM rate (small matmuls,
# attention, norms and the optimizer run slower than the best GEMM)
STEP_OVERHEAD = 2.0


def train_step(device: str, peak_flops: float | None, precision: str, budget_s: float = 10.0,
               rehearsal: bool = False) -> Measurement:
    """Tokens/s of one optimizer step of the bundled trainer (forward, backward, AdamW), and its MFU.

    With a measured `peak_flops`, a step predicted to take more than a third of the budget (a warm-up and
    two timed steps must fit) is not started: the probe reports it cut short instead of running for minutes."""
    from ..train.distributed import DistEnv
    from ..train.flops import flops_per_token, mfu
    from ..train.trainer import Trainer

    deadline = time.perf_counter() + budget_s
    cfg = dataclasses.replace(probe_train_config(device, rehearsal), precision=precision)
    predicted = STEP_OVERHEAD * flops_per_token(cfg.model) * cfg.tokens_per_step_per_worker / peak_flops \
        if peak_flops else 0.0
    if predicted > budget_s / 3:
        return cut_short("tokens/s", f"a step would take ~{predicted:.0f} s at {peak_flops / 1e9:.0f} GFLOP/s",
                         precision=precision)
    env = DistEnv(0, 0, 1, 1, 0, torch.device(device))
    with tempfile.TemporaryDirectory(prefix="sahab-bench-") as tmp:
        cfg = dataclasses.replace(cfg, checkpoint_dir=tmp)
        trainer = Trainer(cfg, env, peak_flops, batches=_probe_batches(cfg))
        step = iter(range(10**6))
        trainer._run_batch(next(step))  # first step builds the optimizer state
        remaining = deadline - time.perf_counter()
        seconds = best_time(lambda: trainer._run_batch(next(step)), _sync_for(device),
                            budget_s=min(2.5, remaining), deadline=deadline)
    tokens_per_s = cfg.tokens_per_step_per_worker / seconds
    extra = {"precision": trainer.precision, "samples_per_s": tokens_per_s / cfg.model.seq_len,
             "seq_len": cfg.model.seq_len}
    if rehearsal:
        extra["rehearsal"] = "recorded GPU properties: the class's code path on this CPU, not its hardware"
    if peak_flops:
        extra["mfu"] = round(mfu(tokens_per_s, cfg.model, peak_flops), 4)
    return Measurement(tokens_per_s, "tokens/s", extra)


def _probe_batches(cfg):
    """The training data pipeline on a smaller corpus: generating it is Python, and not what is measured."""
    from ..train.data import default_batches

    return default_batches(cfg.model.seq_len, cfg.batch_size, cfg.seed, n_chars=100_000)


def dataloader(device: str, budget_s: float = 3.0) -> Measurement:
    """Samples/s the training data pipeline produces, delivered to the device."""
    deadline = time.perf_counter() + budget_s
    cfg = probe_train_config(device)
    batches = _probe_batches(cfg)
    step = iter(range(10**6))

    def once():
        x, y = batches.batch(next(step))
        x.to(device, non_blocking=True), y.to(device, non_blocking=True)

    seconds = best_time(once, _sync_for(device), budget_s=0.5, deadline=deadline)
    return Measurement(cfg.batch_size / seconds, "samples/s", {"batch_size": cfg.batch_size})

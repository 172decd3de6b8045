"""Dense matrix-multiply throughput: the best rate over a few square and transformer-like shapes.

The whole measurement keeps its budget on any CPU: a small calibration call estimates the rate first, and a
shape whose single call would not fit in what is left of the budget is skipped (reported, never waited on).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from .timing import best_time, no_sync

CPU_SHAPES = ((1024, 1024, 1024), (2048, 2048, 2048), (2048, 4096, 1024))
GPU_SHAPES = ((4096, 4096, 4096), (8192, 8192, 8192), (16384, 8192, 1280))
CALIBRATION_SHAPE = (256, 256, 256)  # ~34 MFLOP: 45 ms even at emulated-bf16 rates on one AVX2 core
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


@dataclass(frozen=True)
class GemmRate:
    flops: float  # best FLOP/s over the shapes measured
    shapes_measured: int
    shapes_skipped: int  # shapes whose one call would have broken the budget


def measure_gemm(
    precision: str, device: str = "cpu", budget_s: float = 1.2, shapes: tuple | None = None
) -> GemmRate:
    """Best measured FLOP/s of `a @ b` at `precision` within `budget_s` (split evenly over the shapes)."""
    dtype = DTYPES[precision]
    cuda = device.startswith("cuda")
    shapes = shapes or (GPU_SHAPES if cuda else CPU_SHAPES)
    sync = (lambda: torch.cuda.synchronize(device)) if cuda else no_sync
    deadline = time.perf_counter() + budget_s
    best = _rate(CALIBRATION_SHAPE, dtype, device, sync, budget_s=0.0, deadline=deadline)
    measured = skipped = 0
    for i, shape in enumerate(shapes):
        m, n, k = shape
        remaining = deadline - time.perf_counter()
        # its first call must fit (timed repeats stop at the deadline); assume the shape runs no faster
        # than the best rate seen so far
        if 2 * m * n * k / best > remaining:
            skipped += 1
            continue
        share = remaining / (len(shapes) - i)
        best = max(best, _rate(shape, dtype, device, sync, budget_s=share, deadline=deadline))
        measured += 1
    return GemmRate(best, measured, skipped)


def _rate(shape, dtype, device, sync, budget_s: float, deadline: float) -> float:
    m, n, k = shape
    a = torch.randn(m, k, device=device).to(dtype)
    b = torch.randn(k, n, device=device).to(dtype)
    seconds = best_time(lambda: torch.mm(a, b), sync, budget_s, deadline=deadline)
    return 2 * m * n * k / seconds


def gemm_flops(precision: str, device: str = "cpu", budget_s: float = 1.2, shapes: tuple | None = None) -> float:
    """Peak measured FLOP/s of `a @ b` at `precision` within `budget_s`."""
    return measure_gemm(precision, device, budget_s, shapes).flops

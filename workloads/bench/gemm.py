"""Dense matrix-multiply throughput: the best rate over a few square and transformer-like shapes."""

from __future__ import annotations

import torch

from workloads.bench.timing import best_time, no_sync

CPU_SHAPES = ((1024, 1024, 1024), (2048, 2048, 2048), (2048, 4096, 1024))
GPU_SHAPES = ((4096, 4096, 4096), (8192, 8192, 8192), (16384, 8192, 1280))
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def gemm_flops(precision: str, device: str = "cpu", budget_s: float = 0.4) -> float:
    """Peak measured FLOP/s of `a @ b` at `precision` (max over shapes; each shape gets `budget_s`)."""
    dtype = DTYPES[precision]
    shapes = GPU_SHAPES if device.startswith("cuda") else CPU_SHAPES
    sync = torch.cuda.synchronize if device.startswith("cuda") else no_sync
    best = 0.0
    for m, n, k in shapes:
        a = torch.randn(m, k, device=device).to(dtype)
        b = torch.randn(k, n, device=device).to(dtype)
        seconds = best_time(lambda a=a, b=b: torch.mm(a, b), sync, budget_s)
        best = max(best, 2 * m * n * k / seconds)
    return best

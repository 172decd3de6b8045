"""Timing that survives a noisy neighbour: best of several repeats inside a time budget."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(fn: Callable[[], None], sync: Callable[[], None], budget_s: float, min_reps: int = 3) -> float:
    """Fastest wall time of one `fn()` call: repeats until the budget is spent (at least `min_reps` times).

    Interference only ever slows a run down, so the fastest repeat is the best estimate of what the
    hardware does; a node that is slow on every repeat is slow.
    """
    fn()  # warm-up: allocation, kernel selection, oneDNN primitive creation
    sync()
    best = float("inf")
    deadline = time.perf_counter() + budget_s
    reps = 0
    while reps < min_reps or time.perf_counter() < deadline:
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
        reps += 1
    return best


def no_sync() -> None:
    return None

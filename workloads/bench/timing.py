"""Timing that survives a noisy neighbour: best of several repeats inside a time budget."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable


def best_time(
    fn: Callable[[], None],
    sync: Callable[[], None],
    budget_s: float,
    min_reps: int = 3,
    deadline: float | None = None,
) -> float:
    """Fastest wall time of one `fn()` call: repeats until the budget is spent (at least `min_reps` times,
    unless the hard `deadline` (a time.perf_counter() value) passes first; then what was measured counts).

    Interference only ever slows a run down, so the fastest repeat is the best estimate of what the
    hardware does; a node that is slow on every repeat is slow.
    """
    start = time.perf_counter()
    fn()  # warm-up: allocation, kernel selection, oneDNN primitive creation
    sync()
    best = time.perf_counter() - start  # an upper bound, used only if the deadline allows nothing better
    soft = time.perf_counter() + budget_s
    hard = float("inf") if deadline is None else deadline
    reps = 0
    while (reps < min_reps or time.perf_counter() < soft) and time.perf_counter() < hard:
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
        reps += 1
    return best


def no_sync() -> None:
    return None


class OutOfTime(Exception):
    """Raised inside a `hard_limit` block when its time is up."""


# A stop (OutOfTime, Stopped) that came inside a `shielded` block: the first one, raised when the block ends.
_shield_depth = 0
_deferred: Exception | None = None


def _interrupt(stop: Exception) -> None:
    """Raise `stop` from a signal handler, unless a `shielded` block is running: then when it ends."""
    global _deferred
    if _shield_depth:
        _deferred = _deferred or stop
        return
    raise stop


@contextlib.contextmanager
def shielded():
    """Work a stop must not cut in half, such as starting processes: one stopped while it starts a child would not
    know that child's pid, and could neither stop nor wait for it. A stop that comes meanwhile is raised at the end
    (a block that raised keeps its own error, and the stop is not left for the next block)."""
    global _shield_depth, _deferred
    _shield_depth += 1
    try:
        yield
    finally:
        _shield_depth -= 1
        stop, _deferred = (_deferred, None) if not _shield_depth else (None, _deferred)
    if stop is not None:
        raise stop


@contextlib.contextmanager
def hard_limit(seconds: float):
    """Interrupt the block after `seconds` (SIGALRM; only the main thread can receive it, elsewhere the
    block runs on its own soft deadlines). Python code is stopped between two operations, so a block
    overruns by at most one torch call, which the probes size to fit their budgets."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        _interrupt(OutOfTime())

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Stopped(Exception):
    """Raised inside a probe when the process is told to terminate (`Termination`)."""


class Termination:
    """SIGTERM (a pod being terminated, a caller's timeout) during a validation: the probe running is stopped, no
    probe starts after it, and the run still ends with a result that says so. Outside a probe the signal is only
    noted, so set-up and judging are never cut in half. Only the main thread can catch it; elsewhere the default
    action stays."""

    def __init__(self) -> None:
        self.signal = ""  # the signal's name once one came
        self.in_probe = False
        self._previous = None

    def __enter__(self) -> Termination:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)

    def _handle(self, signum, frame) -> None:
        self.signal = signal.Signals(signum).name
        if self.in_probe:
            self.in_probe = False  # one raise per probe, however many signals follow
            _interrupt(Stopped(self.signal))

    @contextlib.contextmanager
    def probe(self):
        self.in_probe = True
        try:
            yield
        finally:
            self.in_probe = False

"""What the suite's parallel workers share: one folder per test run, and work done once in it for all of them.

`make test` runs pytest-xdist with three workers, each its own process with its own session fixtures. Work that every
worker would otherwise repeat (planning a stack, installing the wheel) is done by the first worker that needs it,
under a file lock, and read back from this run's folder by the others. A plain `pytest` (one process) shares
nothing and behaves as before; so does a machine without fcntl (Windows)."""

from __future__ import annotations

import contextlib
import json
import os
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

T = TypeVar("T")
# pip builds Sahab's wheel in the checkout (setuptools' build/ folder): one build at a time, whoever runs it.
CHECKOUT_BUILD_LOCK = Path(__file__).resolve().parent.parent / ".pytest_cache" / "checkout-build.lock"
# Set by tests/conftest.py (pytest_configure) in an xdist worker, never inherited by a test's subprocesses: the
# parent of the workers' temporary directories (pytest keeps the last few runs' and removes older ones).
_run_folder: Path | None = None


def share_in(folder: Path) -> None:
    global _run_folder
    _run_folder = folder / "shared" if fcntl is not None else None


def run_folder() -> Path | None:
    return _run_folder


def machine_cache() -> Path:
    """Where the suite keeps what it builds once per machine, outside every checkout and run: `$SAHAB_TEST_CACHE`,
    default /var/cache/sahab-tests (~/.cache/sahab-tests where that cannot be made)."""
    cache = Path(os.environ.get("SAHAB_TEST_CACHE", "/var/cache/sahab-tests"))
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        cache = Path.home() / ".cache" / "sahab-tests"
        cache.mkdir(parents=True, exist_ok=True)
    return cache


@contextlib.contextmanager
def locked(path: Path, *, shared: bool = False) -> Iterator[None]:
    """Hold `path`'s lock (exclusive, or shared with other shared holders) across processes."""
    if fcntl is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def building_the_checkout() -> contextlib.AbstractContextManager[None]:
    return locked(CHECKOUT_BUILD_LOCK)


def once_per_run(name: str, build: Callable[[], T]) -> T:
    """`build()`'s result, built by the first worker of this run that asks and unpickled by the others."""
    folder = run_folder()
    if folder is None:
        return build()
    done = folder / f"{name}.pickle"
    with locked(folder / f"{name}.lock"):
        if done.is_file():
            return pickle.loads(done.read_bytes())
        value = build()
        partial = done.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        partial.replace(done)
        return value


def record_groups(groups: dict[str, str]) -> None:
    """Tell the xdist controller which tests (node ids) must run together on one worker (each worker writes the
    same list; tests/conftest.py's scheduler reads it)."""
    folder = run_folder()
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f"groups.{os.getpid()}.partial"
    partial.write_text(json.dumps(groups))
    partial.replace(folder / "groups.json")


def recorded_groups(controller_temp: Path) -> dict[str, str]:
    """The groups the workers recorded, read by the controller (whose temporary directory holds the workers')."""
    path = controller_temp / "shared" / "groups.json"
    return json.loads(path.read_text()) if path.is_file() else {}

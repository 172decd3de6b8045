"""A status line for the slow commands (`sahab plan`, `sahab check`): what is running and how many resources
the program has registered so far, redrawn in place on stderr.

Only on a terminal: when stderr is not a TTY (CI, a pipe, a file) or with `--quiet` nothing is drawn at all, and
it never touches stdout, so machine output (JSON, SARIF, JUnit) is the same with or without it."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

COUNT_FILE = "SAHAB_PROGRESS_FILE"
FRAMES = "|/-\\"
INTERVAL = 0.1  # seconds between redraws


class Spinner:
    def __init__(self, label: str, stream: TextIO) -> None:
        self.label = label
        self.stream = stream
        self.resources = 0
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._draw, name="sahab-progress", daemon=True)

    def resource(self, type_: str, name: str) -> None:
        """The engine's per-resource hook (sahab.engine.on_resource), for a plan in this process."""
        self.resources += 1

    def _shown(self) -> str:
        """The resource count when one arrives; until then (or without one) the seconds spent, never a false 0."""
        counted = self._counted()
        return f"{counted} resources" if counted else f"{time.monotonic() - self._started:.0f} s"

    def _counted(self) -> int:
        """Resources registered so far: by this process, or by a worker through the count file it keeps."""
        try:
            return max(self.resources, int(Path(os.environ[COUNT_FILE]).read_text() or 0))
        except (KeyError, OSError, ValueError):
            return self.resources

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        # The final count once (a busy host may have starved the redraws), then leave the line as it was.
        self.stream.write(f"\r\033[K  {self.label}: {self._shown()}\r\033[K")
        self.stream.flush()

    def _draw(self) -> None:
        frame = 0
        while not self._stop.wait(INTERVAL):
            self.stream.write(f"\r\033[K{FRAMES[frame % len(FRAMES)]} {self.label}: {self._shown()}")
            self.stream.flush()
            frame += 1


def enabled(quiet: bool, stream: TextIO | None = None) -> bool:
    stream = stream or sys.stderr
    return not quiet and hasattr(stream, "isatty") and stream.isatty()


@contextlib.contextmanager
def spinner(label: str, quiet: bool = False, stream: TextIO | None = None) -> Iterator[None]:
    """Draw the status line while the block runs, counting resources through the engine's hook."""
    from sahab import engine

    stream = stream or sys.stderr
    if not enabled(quiet, stream):
        yield
        return
    status = Spinner(label, stream)
    previous, engine.on_resource = engine.on_resource, status.resource
    # A worker process (sahab.worker) cannot call our hook: it writes its running count to this file instead.
    handle, path = tempfile.mkstemp(prefix="sahab-progress-")
    os.close(handle)
    os.environ[COUNT_FILE] = path
    status.start()
    try:
        yield
    finally:
        engine.on_resource = previous
        status.stop()
        os.environ.pop(COUNT_FILE, None)
        Path(path).unlink(missing_ok=True)


def count_into_file() -> None:
    """In a worker: keep the running resource count where the parent's spinner reads it (when it asked)."""
    from sahab import engine

    path = os.environ.get(COUNT_FILE)
    if not path:
        return
    count = 0

    def counted(type_: str, name: str) -> None:
        nonlocal count
        count += 1
        with contextlib.suppress(OSError):
            Path(path).write_text(str(count))

    engine.on_resource = counted

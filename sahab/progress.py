"""A status line for the slow commands (`sahab plan`, `sahab check`): what is running and how many resources
the program has registered so far (the engine calls `resource` for each), redrawn in place on stderr.

Only on a terminal: when stderr is not a TTY (CI, a pipe, a file) or with `--quiet` nothing is drawn at all, and
it never touches stdout, so machine output (JSON, SARIF, JUnit) is the same with or without it."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

FRAMES = "|/-\\"
INTERVAL = 0.1  # seconds between redraws


class Spinner:
    def __init__(self, label: str, stream: TextIO) -> None:
        self.label = label
        self.stream = stream
        self.resources = 0
        self._lock = threading.Lock()  # the engine calls in from its server threads
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._draw, name="sahab-progress", daemon=True)

    def resource(self, type_: str, name: str) -> None:
        """The engine's per-resource hook: one more resource registered."""
        with self._lock:
            self.resources += 1

    def _shown(self) -> str:
        """The resource count when one arrives; until then the seconds spent, never a false 0."""
        return f"{self.resources} resources" if self.resources else f"{time.monotonic() - self._started:.0f} s"

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
def spinner(label: str, quiet: bool = False,
            stream: TextIO | None = None) -> Iterator[Callable[[str, str], None] | None]:
    """Draw the status line while the block runs; yields the per-resource hook to give the engine (None when
    nothing is drawn)."""
    stream = stream or sys.stderr
    if not enabled(quiet, stream):
        yield None
        return
    status = Spinner(label, stream)
    status.start()
    try:
        yield status.resource
    finally:
        status.stop()

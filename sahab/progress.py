"""A status line for the slow commands (`sahab plan`, `sahab check`): what is running and how many resources
the program has registered so far, redrawn in place on stderr.

Only on a terminal: when stderr is not a TTY (CI, a pipe, a file) or with `--quiet` nothing is drawn at all, and
it never touches stdout, so machine output (JSON, SARIF, JUnit) is the same with or without it."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

FRAMES = "|/-\\"
INTERVAL = 0.1  # seconds between redraws


class Spinner:
    def __init__(self, label: str, stream: TextIO) -> None:
        self.label = label
        self.stream = stream
        self.resources = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._draw, name="sahab-progress", daemon=True)

    def resource(self, type_: str, name: str) -> None:
        """The engine's per-resource hook (sahab.engine.on_resource)."""
        self.resources += 1

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.stream.write("\r\033[K")  # leave the line as it was
        self.stream.flush()

    def _draw(self) -> None:
        frame = 0
        while not self._stop.wait(INTERVAL):
            self.stream.write(f"\r\033[K{FRAMES[frame % len(FRAMES)]} {self.label}: {self.resources} resources")
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
    status.start()
    try:
        yield
    finally:
        engine.on_resource = previous
        status.stop()

"""Errors the workload's commands turn into exit code 2 with one `error:` line on stderr, never a traceback.

The image carries no `sahab` package (DESIGN.md: the image is its own world), so the workload has its own;
the `sahab` CLI, which delegates `bench`, `train` and `node-validate` here, reports them the same way."""

from __future__ import annotations

import os
import sys
import traceback


class WorkloadError(Exception):
    """A problem the user can fix: bad input or a file that cannot be used. Exit code 2."""

    exit_code = 2


class UsageError(WorkloadError):
    """Wrong command-line usage."""


class ConfigError(WorkloadError):
    """An unusable input file or setting; `path` names it (a file, `--checkpoint-dir s3://...`)."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


def one_line(text: object) -> str:
    return " ".join(str(text).split())


def report_error(exc: BaseException) -> int:
    """Print `error: ...` for any exception and return its exit code; tracebacks only with SAHAB_DEBUG=1."""
    if os.environ.get("SAHAB_DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)
    if isinstance(exc, WorkloadError):
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return exc.exit_code
    print(f"error: {type(exc).__name__}: {one_line(exc)}", file=sys.stderr)
    return 2

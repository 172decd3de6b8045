"""Errors the CLI turns into exit code 2 with one `error:` line on stderr, never a traceback.

The schema's and components' own errors live beside them (components.errors); the CLI adds its own here."""

from __future__ import annotations

import os
import sys
import traceback

from sahab.components.errors import ConfigError, SahabError
from sahab.workloads.errors import WorkloadError

__all__ = ["ConfigError", "ProgramError", "SahabError", "UsageError", "one_line", "report_error"]


class UsageError(SahabError):
    """Wrong command-line usage."""


class ProgramError(SahabError):
    """A Pulumi program that raised while it was being planned."""


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def report_error(exc: BaseException) -> int:
    """Print `error: ...` for any exception and return its exit code; tracebacks only with SAHAB_DEBUG=1."""
    if os.environ.get("SAHAB_DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)
    if isinstance(exc, SahabError | WorkloadError):  # the workload's commands (bench, train, node-validate)
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return exc.exit_code
    print(f"error: {type(exc).__name__}: {one_line(exc)}", file=sys.stderr)
    return 2

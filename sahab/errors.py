"""Errors the CLI turns into exit code 2 with one `error:` line on stderr, never a traceback."""

from __future__ import annotations

import os
import sys
import traceback


class SahabError(Exception):
    """A problem the user can fix: bad input, config or program. Exit code 2."""

    exit_code = 2


class UsageError(SahabError):
    """Wrong command-line usage."""


class ConfigError(SahabError):
    """Invalid configuration. `path` names the config location, e.g. `sahab:fleet.node_pools[2].max_size`."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


class ProgramError(SahabError):
    """A Pulumi program that raised while it was being planned."""


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def report_error(exc: BaseException) -> int:
    """Print `error: ...` for any exception and return its exit code; tracebacks only with SAHAB_DEBUG=1."""
    if os.environ.get("SAHAB_DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)
    if isinstance(exc, SahabError):
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return exc.exit_code
    print(f"error: {type(exc).__name__}: {one_line(exc)}", file=sys.stderr)
    return 2

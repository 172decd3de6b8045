"""Python source parsed safely from any thread of a process.

CPython 3.11 keeps the AST builder's recursion depth in interpreter-wide state. The engine reads SDK types on the
monitor's thread pool, and the pack judges resources on the analyzer's: a parse that another thread interrupts (a
garbage collection can switch threads mid-parse) fails with "SystemError: AST constructor recursion depth
mismatch". Every parse in Sahab goes through this one lock; parses are a small share of a plan or a check.
"""

from __future__ import annotations

import ast
import threading

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str | bytes, mode: str = "exec") -> ast.AST:
    """`ast.parse`, one thread at a time."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, mode=mode)

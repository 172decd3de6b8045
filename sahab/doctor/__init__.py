"""`sahab doctor`: what a real `pulumi up` of a stack needs, asked of the world before the run.

Each area of checks is one module in this package exposing `AREA` (a short name shown before each line) and
`checks(ctx: DoctorContext) -> Iterable[Check]`. The command discovers the modules, so adding an area touches
no other file. A check never changes anything: it reads (a CLI's version, a cloud API, a socket) and says what
it found and, when something is missing, the one action that closes the gap.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OK, FAIL, SKIP = "ok", "fail", "skip"


@dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, what was found, and how to close the gap when it failed."""

    area: str
    name: str
    status: str  # OK | FAIL | SKIP (not applicable to this stack, or not askable from here)
    detail: str
    remedy: str = ""

    def contract(self) -> dict[str, str]:
        return {"area": self.area, "name": self.name, "status": self.status, "detail": self.detail,
                "remedy": self.remedy}


@dataclass
class DoctorContext:
    """What every area may read: the stack, its parsed fleet (None when the stack has no `sahab:fleet`) and the
    stack's other config (`namespace:key` -> text), plus endpoint overrides tests use to aim clients at
    loopback stand-ins (e.g. {"aws": "http://127.0.0.1:5000"}). Areas cache what they fetch in `memo`."""

    project_dir: Path
    stack: str
    fleet: Any
    config: dict[str, str]
    endpoints: dict[str, str] = field(default_factory=dict)
    timeout: float = 10.0
    memo: dict[str, Any] = field(default_factory=dict)

    def cached(self, key: str, fetch: Callable[[], Any]) -> Any:
        if key not in self.memo:
            self.memo[key] = fetch()
        return self.memo[key]


def areas() -> list[Any]:
    """Every check module of this package, in name order."""
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)
            if not info.name.startswith("_")]


def run_checks(ctx: DoctorContext, only: Iterable[str] = ()) -> Iterator[Check]:
    """Every area's checks; an area that raises is reported as one failed check, never a traceback."""
    wanted = set(only)
    for module in areas():
        if wanted and module.AREA not in wanted:
            continue
        try:
            yield from module.checks(ctx)
        except Exception as exc:  # one broken area must not hide the others' answers
            yield Check(module.AREA, "checks", FAIL, f"{type(exc).__name__}: {exc}",
                        "run with SAHAB_DEBUG=1 for the traceback and report it")

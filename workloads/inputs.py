"""Numbers, URLs and files a user gives in an environment variable or a command-line option, checked once, before
any work: a value that is not a finite number within its bounds, or a path that is not a file to read, is one
error naming the variable or option and what is allowed (never a ValueError traceback from a worker, never an
endless or negative timeout, never "no such file" for a folder). Both CLIs use this (`sahab` through
sahab/commands)."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from .errors import ConfigError


def _number(text: str) -> float:
    text = text.strip()
    try:
        value = float(text) if text.isascii() else math.nan  # float() reads Arabic-Indic digits too
    except ValueError:
        return math.nan
    return value


def _allowed(low: float, high: float, unit: str) -> str:
    return f"a number of {unit} from {low:g} to {high:g}"


def env_number(name: str, default: float, *, low: float, high: float, unit: str = "seconds") -> float:
    """The variable `name` as a number in [low, high] (`default` when unset or empty); else a ConfigError
    naming the variable."""
    raw = os.environ.get(name, "")
    if not raw.strip():
        return default
    value = _number(raw)
    if not (math.isfinite(value) and low <= value <= high):
        raise ConfigError(name, f"{raw!r} is not allowed; allowed: {_allowed(low, high, unit)}")
    return value


def seconds_option(low: float, high: float, unit: str = "seconds"):
    """An argparse `type` for a --timeout-like option: a finite number in (low, high] when low is 0, else in
    [low, high]; argparse names the option in its error."""

    def parse(text: str) -> float:
        value = _number(text)
        inside = (low < value if low == 0 else low <= value) and value <= high
        if not (math.isfinite(value) and inside):
            bound = f"more than 0 and at most {high:g}" if low == 0 else f"from {low:g} to {high:g}"
            raise argparse.ArgumentTypeError(f"{text!r} is not allowed; allowed: a number of {unit} {bound}")
        return value

    parse.__name__ = "seconds"
    return parse


def http_url_problem(text: str) -> str | None:
    """Why `text` is not an http(s) URL with a host (and a port 1-65535 when it names one); None when it is."""
    from urllib.parse import urlsplit

    allowed = "an http(s) URL like https://127.0.0.1:8443 (a host, an optional port 1-65535)"
    if not text.isascii() or any(c.isspace() or ord(c) < 32 for c in text):
        return f"{text!r} is not allowed; allowed: {allowed}"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:  # an unclosed [IPv6, a port out of range or not a number
        return f"{text!r} is not allowed ({exc}); allowed: {allowed}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{text!r} is not allowed; allowed: {allowed}"
    if port == 0:
        return f"{text!r} is not allowed (port 0); allowed: {allowed}"
    return None


def http_url_option(text: str) -> str:
    """An argparse `type` for a URL option (argparse names the option in its error)."""
    problem = http_url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def file_problem(path: Path) -> str | None:
    """Why `path` is not a file to read ("is a directory", "no such file"...); None when it is one."""
    if path.is_dir():
        return "is a directory"
    if path.is_file():
        return None
    return "is not a regular file" if path.exists() else "no such file"


def input_file(expected: str):
    """An argparse `type` for an option that names a file to read (`expected` says what it holds, e.g. "a
    waivers YAML file"): the path must be a regular file. A folder is called a folder, a missing path missing;
    argparse names the option in its error. Every such option of both CLIs takes its files through here."""

    def parse(text: str) -> Path:
        path = Path(text)
        problem = file_problem(path)
        if problem:
            raise argparse.ArgumentTypeError(f"{text}: {problem}; expected {expected}")
        return path

    parse.__name__ = "file"
    return parse

"""The process a program is planned in, and how a caller runs it.

`python -m sahab.worker PROJECT_DIR STACK [--no-preview]` plans one stack and writes one JSON document to
its standard output: `{"plan": ...}` or `{"error": ...}`. Everything the program itself prints goes to
standard error instead (its stdout is the worker's stderr), so machine output stays parseable. When the
document is written the worker ends at once (`os._exit`): threads the program left behind and interpreter
teardown noise cannot hold it up or reach the user.

The caller (`run_in_worker`) starts the worker under the program's virtualenv when Pulumi.yaml names one,
stops it (and everything it started) after the time limit, and turns every way a worker can end into a
plan or one SahabError.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sahab.errors import ConfigError, ProgramError, SahabError, UsageError
from sahab.project import Project, program_entry, program_virtualenv

# Set in a worker's environment: nested workers (StackReferences) share its process group and deadline.
DEADLINE_ENV = "SAHAB_WORKER_DEADLINE"
SAHAB_ROOT = Path(__file__).resolve().parent.parent


def run_in_worker(project: Project, stack: str, *, preview: bool, timeout: float) -> Any:
    from sahab.engine import Plan

    python, warning = _interpreter(project)
    deadline = time.monotonic() + timeout
    inherited = os.environ.get(DEADLINE_ENV)
    nested = inherited is not None
    if nested:
        # A StackReference's stack is planned within what is left of the referencing plan's time.
        deadline = min(deadline, time.monotonic() + max(float(inherited) - time.time(), 0.1))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(SAHAB_ROOT), os.environ.get("PYTHONPATH"))
                                                       if p),
           DEADLINE_ENV: str(time.time() + (deadline - time.monotonic())), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [python, "-m", "sahab.worker", str(project.root), stack]
    if not preview:
        command.append("--no-preview")
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=project.root, start_new_session=not nested)
    try:
        out, err = proc.communicate(timeout=max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired:
        _stop(proc, nested)
        out, err = proc.communicate()
        _relay(err)
        limit = f"{timeout:g} s" if not nested else "the time left to the referencing stack"
        raise ProgramError(f"{program_entry(project)}: the program did not finish within {limit} and was stopped "
                           f"(raise the limit with --timeout SECONDS or SAHAB_PROGRAM_TIMEOUT)") from None
    _relay(err)
    doc = _document(out)
    if doc is None:
        status = proc.returncode
        how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        raise ProgramError(f"{program_entry(project)}: the program ended the process ({how}) before it finished")
    if "error" in doc:
        raise _error(doc["error"])
    result = Plan.from_json(doc["plan"])
    if warning:
        result.notices.insert(0, warning)
    return result


def _interpreter(project: Project) -> tuple[str, str | None]:
    """The program's own virtualenv's Python when Pulumi.yaml names one that exists, as `pulumi preview` uses."""
    venv = program_virtualenv(project)
    if venv is None:
        return sys.executable, None
    for candidate in (venv / "bin" / "python", venv / "Scripts" / "python.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate), None
    return sys.executable, (f"Pulumi.yaml names the virtualenv {venv}, which does not exist; planned with "
                            f"{sys.executable} (run `pulumi install` to create it)")


def _stop(proc: subprocess.Popen, nested: bool) -> None:
    try:
        if nested:
            proc.kill()
        else:
            os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _document(out: bytes) -> dict[str, Any] | None:
    text = out.decode("utf-8", "replace").strip()
    if not text:
        return None
    try:
        doc = json.loads(text.splitlines()[-1])
    except ValueError:
        return None
    return doc if isinstance(doc, dict) and ("plan" in doc or "error" in doc) else None


_NOISE_START = re.compile(r"^(Traceback \(most recent call last\):|Exception ignored |Exception in thread )")


def _relay(err: bytes) -> None:
    """Pass on what the program printed; drop Python tracebacks (its own and teardown noise), which the
    error line already summarises (SAHAB_DEBUG=1 keeps them)."""
    lines = err.decode("utf-8", "replace").splitlines()
    if os.environ.get("SAHAB_DEBUG"):
        sys.stderr.write("\n".join(lines) + "\n" if lines else "")
        return
    kept: list[str] = []
    skipping = False
    for line in lines:
        if _NOISE_START.match(line):
            skipping = True
            continue
        if skipping:
            if line.startswith((" ", "\t")) or not line.strip():
                continue
            skipping = False
            if re.match(r"^[\w.]+(Error|Exception|Warning|Exit|Interrupt)\b", line):
                continue  # the exception line that closes a traceback
        kept.append(line)
    if kept:
        sys.stderr.write("\n".join(kept) + "\n")
        sys.stderr.flush()


def _error(doc: dict[str, Any]) -> SahabError:
    kind, message = doc.get("kind"), str(doc.get("message", "the program failed"))
    if kind == "ConfigError":
        err: SahabError = ConfigError(doc.get("path") or "", doc.get("detail") or message)
    elif kind == "UsageError":
        err = UsageError(message)
    elif kind == "StackReferenceCycle":
        from sahab.stack_outputs import StackReferenceCycle

        err = StackReferenceCycle(message)
    else:
        err = ProgramError(message)
    err.exit_code = int(doc.get("exit_code", 2))
    return err


# ---------------------------------------------------------------------------------------------------------
# The worker itself


def main(argv: list[str]) -> None:
    result = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # the program's prints go to stderr; only the result document goes to the real stdout
    sys.stdout = sys.stderr
    sys.unraisablehook = lambda _unraisable: None  # teardown noise ("Exception ignored in ...")
    _quiet_thread_errors()
    doc: dict[str, Any]
    try:
        try:
            import pulumi  # noqa: F401  (the program's interpreter must have the SDK)
        except ModuleNotFoundError:
            raise ProgramError(f"{sys.executable}: the program's virtualenv has no Pulumi SDK: install the "
                               f"program's requirements there (pip install pulumi)") from None
        from sahab.engine import run_program
        from sahab.progress import count_into_file
        from sahab.project import find_project, load_stack, program_entry

        count_into_file()

        project = find_project(Path(argv[0]))
        config = load_stack(project, argv[1])
        planned = run_program(project, program_entry(project), config, preview="--no-preview" not in argv)
        doc = {"plan": planned.to_json()}
    except BaseException as exc:  # the worker must always answer, whatever the program raised
        if os.environ.get("SAHAB_DEBUG"):
            import traceback

            traceback.print_exception(exc)
        doc = {"error": _describe(exc)}
    try:
        result.write(json.dumps(doc, default=str) + "\n")
        result.flush()
    finally:
        os._exit(0)


def _describe(exc: BaseException) -> dict[str, Any]:
    if not isinstance(exc, SahabError):
        exc = ProgramError(f"{type(exc).__name__}: {exc}")
    doc = {"kind": type(exc).__name__, "message": " ".join(str(exc).split()), "exit_code": exc.exit_code}
    if isinstance(exc, ConfigError):
        doc |= {"path": exc.path, "detail": " ".join(str(exc.message).split())}
    return doc


def _quiet_thread_errors() -> None:
    import threading

    threading.excepthook = lambda _args: None


if __name__ == "__main__":
    main(sys.argv[1:])

"""What a checked program leaves running is ended before Sahab writes its verdict.

A program runs in a session of its own (`sahab.engine.host`); when its run ends, whatever is still in that
session's process group is killed there. A process can leave the group (`setsid()` after a double fork) and wait
for Sahab to exit, then rewrite the reports. So `sahab check` and `sahab plan`, run as a command of their own (the
`sahab` script, `python -m sahab`), first make themselves a child subreaper on Linux (prctl
PR_SET_CHILD_SUBREAPER): an orphan of the program is then re-parented to Sahab, not to init, and once the program
has run, `end_orphans()` kills every such child before any report is written.

Not contained: a process the program has someone else start (`at`, `systemd-run --user`, a container runtime, an
ssh to elsewhere), anything on an OS other than Linux beyond the program's own process group, and a process that
acts while the program is still running (it runs as the same user as Sahab: the verdict of an unreviewed
program's check is advice, and the CI step decides pass or fail from Sahab's exit status, not from a file).
In-process callers (tests calling `sahab.cli.main`) get only the process-group kill: a subreaper would adopt the
caller's own daemons.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

_PR_SET_CHILD_SUBREAPER = 36
_own_process = False  # set by sahab.cli.entry: this process is the `sahab` command itself
_adopting = False


def own_process() -> None:
    """Called by the command's entry point: this process may adopt and end its programs' orphans."""
    global _own_process
    _own_process = True


def adopt_orphans() -> bool:
    """Become a child subreaper (Linux, command processes only); whether it did."""
    global _adopting
    if _adopting:
        return True
    if not _own_process or not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _adopting = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _adopting = False
    return _adopting


def _children() -> list[int]:
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == me:
            found.append(int(entry))
    return found


def end_orphans(rounds: int = 100) -> int:
    """Kill and reap every child of this process (after a program's run, Sahab has no other); a killed child's
    own children are re-parented here and go in the next round. How many were ended."""
    if not _adopting:
        return 0
    ended = 0
    for _ in range(rounds):
        children = _children()
        if not children:
            break
        for pid in children:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
                ended += 1
    return ended

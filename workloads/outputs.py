"""Output paths checked before any work starts: a run should not measure or train for minutes and then fail
to write what it was asked for.

The checks write for real (root passes every permission test, and a read-only mount fails only on write), and
remove what they created apart from parent directories, which the run would create anyway.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from .errors import UsageError


def check_writable(option: str, path: Path | None, *, make_folders: bool = True) -> None:
    """`path` can be created or overwritten as a file; else a UsageError naming `option`. With `make_folders`
    false (the writer does not create them, e.g. `sahab check --output`), a missing folder is refused too.
    Both CLIs use this one check (`sahab` through sahab/commands)."""
    if path is None:
        return
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory; give a file path")
    if not make_folders and not path.parent.is_dir():
        raise UsageError(f"{option} {path}: no folder {path.parent}")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a"):
            pass
        if _replaceable(path):  # write_atomic puts a temporary file beside it: the folder must take new files
            with tempfile.NamedTemporaryFile(dir=path.resolve().parent, prefix=".sahab-write-check-"):
                pass
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot be written ({exc.strerror})") from exc
    finally:
        if not existed:
            path.unlink(missing_ok=True)


def check_distinct(outputs: Iterable[tuple[str, Path | None]]) -> None:
    """No two outputs name the same file, however it is spelled (`F`, `./F`, an absolute path, a link to it): the
    second write would replace the first and one output would be lost. `outputs` are (the option as given, e.g.
    `--report json=F`, its path); a UsageError names both. Streams (/dev/stdout, /dev/null, a FIFO) are exempt:
    what is written to them is not replaced."""
    seen: dict[object, str] = {}
    for given, path in outputs:
        if path is None or not _replaceable(path):
            continue
        try:
            found = path.stat()
            key: object = (found.st_dev, found.st_ino)  # one file, whatever links lead to it
        except OSError:  # not there yet: the same path once links, `.` and `..` are resolved
            key = os.path.realpath(path)
        if key in seen:
            raise UsageError(f"{seen[key]} and {given}: the same file; give each output a file of its own")
        seen[key] = given


def check_writable_dir(option: str, directory: Path) -> None:
    """`directory` exists (or can be created) and takes new files; else a UsageError naming `option`."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{option} {directory}: is a file, not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".sahab-write-check-"):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {directory}: cannot be written ({exc.strerror})") from exc


def _replaceable(path: Path) -> bool:
    """A path write_atomic renames a new file onto: absent, or a regular file (not /dev/stdout, not a FIFO)."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:  # absent (or unreadable: the write then says why)
        return True


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def write_atomic(path: Path | str, data: str | bytes, *, encoding: str = "utf-8", newline: str | None = None) -> None:
    """Write `data` to `path` all or nothing: a temporary file in the same folder, flushed and fsynced, then
    renamed over `path` (os.replace). A full disk or any failure leaves the old file as it was and no temporary
    behind. A new file gets the usual mode (0666 less the umask), an existing one keeps its own. Every report
    or output file Sahab and its workloads write goes through here."""
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()  # replace the file it points to, not the link
    if isinstance(data, str):
        if newline is None:
            data = data.replace("\n", os.linesep) if os.linesep != "\n" else data
        elif newline:
            data = data.replace("\n", newline)
        data = data.encode(encoding)
    if not _replaceable(path):  # /dev/stdout, a FIFO: written in place, as nothing can be renamed over them
        with open(path, "wb") as out:
            out.write(data)
        return
    try:
        mode = path.stat().st_mode & 0o7777
    except OSError:
        mode = 0o666 & ~_umask()
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_dir(path: Path | str) -> Iterator[Path]:
    """Fill a temporary folder beside `path` (yielded), then rename it to `path`, which must be absent or an
    empty folder. On any failure the temporary folder is removed and `path` is left as it was, so a re-run
    starts clean."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
    try:
        os.chmod(temporary, 0o777 & ~_umask())
        yield temporary
        for inside in temporary.rglob("*"):
            if inside.is_file() and not inside.is_symlink():
                with open(inside, "rb") as f:
                    os.fsync(f.fileno())
        os.replace(temporary, path)  # over an empty folder too; a folder with files in it fails, nothing lost
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    _fsync_dir(path.parent)

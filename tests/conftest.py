"""Shared fixtures. The project root is on sys.path (pytest `pythonpath`), so tests import this checkout.

`wheel_venv` is Sahab as `pip install sahab` gives it: a virtualenv holding exactly requirements.lock (built once
per machine, lock and interpreter, outside the checkout, so only the first run pays for unpacking the provider
SDKs; each run copies it) and the wheel built from this checkout, installed afresh every session. No torch: `sahab
check` needs none. Its bytecode is this environment's where a file is the same (tools/bytecode.py), compiled where
not."""

import atexit
import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from hypothesis import settings

from tests.workers import (
    building_the_checkout,
    locked,
    machine_cache,
    record_groups,
    recorded_groups,
    run_folder,
    share_in,
)
from tools.bytecode import reuse_bytecode

# No per-example deadline: a loaded 2-core CI machine is not a slow function, and no test asserts on time
# (performance figures come from benchmarks/). Each test still bounds its examples with max_examples.
settings.register_profile("sahab", deadline=None)
settings.load_profile("sahab")

# pytest keeps a test module's assertion-rewritten bytecode in __pycache__ only where bytecode may be written. Where
# the environment sets PYTHONDONTWRITEBYTECODE (this project's CI machines do), every worker of every run would
# rewrite the suite's test modules again: about 3 s of CPU each, before the first test. This process keeps them;
# the processes the tests start still follow the environment.
sys.dont_write_bytecode = False


def _end_the_worker() -> None:
    """An xdist worker whose session is over (its results are with the controller) ends here, without tearing down
    its interpreter: that teardown (a run's worth of plans, models and modules) kept workers in C for 5 to 10 s after
    their last exit handler, and the controller waited for the last one before printing the summary."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if os.environ.get("PYTEST_XDIST_WORKER"):
    atexit.register(_end_the_worker)  # registered before the tests' own exit handlers: runs after them

ROOT = Path(__file__).resolve().parent.parent
STACKS = ("dev", "prod", "burst", "smb")
LOCK = ROOT / "requirements.lock"
INSTALL_BUDGET = 900  # seconds for unpacking the locked SDKs into a new virtualenv, on a busy machine


def pytest_configure(config: pytest.Config) -> None:
    """Tell tests/workers.py where this run's xdist workers share work: the parent of their temporary directories
    (xdist hands each worker `--basetemp <run's folder>/<worker>`). One process alone shares with no one."""
    if os.environ.get("PYTEST_XDIST_WORKER") and config.option.basetemp:
        share_in(Path(config.option.basetemp).parent)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """In an xdist worker, two groups across modules are listed for the scheduler below: the test hosts (loopback
    addresses, one base tree), and the modules holding `alone` tests, so those run one after another on one worker
    and the other workers stop once for all of them, not once per test. (torchrun fleets need not run alone: their
    timeouts hold on a loaded machine, tests/workloads/fleet.py.) Modules of `alone` tests only come first in the
    group, so the tests that need not run alone end it, beside the other workers' last units."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        alone_modules = {item.nodeid.split("::", 1)[0] for item in items if item.get_closest_marker("alone")}
        mixed = {item.nodeid.split("::", 1)[0] for item in items if not item.get_closest_marker("alone")}
        items.sort(key=lambda item: item.nodeid.split("::", 1)[0] not in alone_modules - mixed)  # stable
        groups = {item.nodeid: "alone" for item in items if item.nodeid.split("::", 1)[0] in alone_modules}
        record_groups({**groups, **{item.nodeid: "hosts" for item in items if item.get_closest_marker("hosts")}})


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadgroup`: each module is one unit of work (its module fixtures built once, on one worker), and the
    tests a worker recorded under one group (record_groups) are one unit across modules. (pytest-xdist's own
    `xdist_group` marks do nothing under pytest 9.2, which no longer reads the node id xdist rewrites.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # the workers have collected (and recorded) by the time work is split
                self.groups = recorded_groups(config._tmp_path_factory.getbasetemp())
            return self.groups.get(nodeid) or nodeid.split("::", 1)[0]

        def _assign_work_unit(self, node) -> None:
            """Longest unit first (by the seconds tests/durations.json recorded for its modules), so the run does
            not end with one worker on a long module while the other has nothing left to take. The `alone` group
            goes near the end, beside the other workers' short units (handed out first, a cold start, one bench
            figure fell 22% under the baseline calibrated a minute before): once what is left for each other
            worker is about what the group's tests that need not run alone take, so that the workers end together."""
            rest = sum(expected_seconds(tests) for scope, tests in self.workqueue.items() if scope != "alone")
            others = max(1, self.numnodes - 1)
            if "alone" in self.workqueue and rest <= others * ALONE_SHARED * expected_seconds(self.workqueue["alone"]):
                first = "alone"
            else:
                first = max(self.workqueue,
                            key=lambda scope: (scope != "alone", expected_seconds(self.workqueue[scope])))
            self.workqueue.move_to_end(first, last=False)
            super()._assign_work_unit(node)

    return GroupScheduling(config, log)


# The share of the `alone` group's time in tests that need not run alone, beside the other workers (the bench's
# failing-node and report tests read the module's calibration: 35 of its 106 s in a recorded run).
ALONE_SHARED = 0.33


def expected_seconds(nodeids) -> float:
    """What a unit of work took in the run tests/durations.json records (a module it does not name: one second,
    as a new module should take)."""
    modules = {nodeid.split("::", 1)[0] for nodeid in nodeids}
    return sum(_DURATIONS.get(module, 1.0) for module in modules)


# Seconds per test module in a recorded run of the whole suite, for scheduling only
# (`benchmarks/suite_timings.py REPORT --write-durations tests/durations.json` after a run with --junitxml).
_DURATIONS: dict[str, float] = json.loads((ROOT / "tests" / "durations.json").read_text())


# The exclusive hold an `alone` test hands to the `alone` test after it on this worker.
_kept: contextlib.ExitStack | None = None


def _alone(item: pytest.Item | None) -> bool:
    return item is not None and item.get_closest_marker("alone") is not None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """A test marked `alone` runs with no other test beside it: each test holds a lock on one file of the run for
    its setup, call and teardown (so a module fixture counts), shared by ordinary tests and exclusive for an
    `alone` one. The turnstile lets no new test start while an `alone` one waits, so it is never overtaken. An
    `alone` test followed by another hands its exclusive hold on, so no other worker is let in between."""
    global _kept
    folder = run_folder()
    if folder is None:
        yield
        return
    held, _kept = _kept, None
    if held is None:
        held = contextlib.ExitStack()
        with locked(folder / "turnstile.lock"):
            held.enter_context(locked(folder / "alone.lock", shared=not _alone(item)))
    try:
        yield
    finally:
        if _alone(item) and _alone(nextitem):
            _kept = held
        else:
            held.close()


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


@pytest.fixture(scope="module")
def warm_program_hosts():
    """For a module that plans many programs in this process (`pytestmark = pytest.mark.usefixtures(...)`): each
    run forks from a warm host (`sahab.engine.warm_hosts`) that has imported the Pulumi SDK and the provider SDK
    modules of the module's earlier runs, instead of importing them afresh."""
    from sahab.engine import warm_hosts

    with warm_hosts():
        yield


@pytest.fixture(scope="session", autouse=True)
def _checkpoint_key_of_this_session(tmp_path_factory):
    """Training runs (in process and in torchrun workers) sign checkpoints with one key per test session, kept in
    the session's temporary directory, not the user's own (workloads/train/integrity.py)."""
    import os

    if "SAHAB_CHECKPOINT_KEY" not in os.environ and "SAHAB_CHECKPOINT_KEY_FILE" not in os.environ:
        os.environ["SAHAB_CHECKPOINT_KEY_FILE"] = str(tmp_path_factory.mktemp("checkpoint-key") / "key")


def quiet_env() -> dict[str, str]:
    # Run from outside the checkout: nothing of it may be importable except through the wheel.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONWARNINGS"] = "ignore"
    return env


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """Built once per run (xdist workers share it; pip builds in the checkout, so one build at a time)."""
    shared = run_folder()
    out = shared / "wheel" if shared else tmp_path_factory.mktemp("wheel")
    with building_the_checkout():
        if not list(out.glob("sahab-*.whl")):
            subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                            str(out), str(ROOT)], check=True, env=quiet_env(), capture_output=True, timeout=300)
    (built,) = out.glob("sahab-*.whl")
    return built


def copy_locked_dependencies(target: Path) -> None:
    """Copy to `target` a virtualenv holding exactly requirements.lock, built once per machine for this lock and
    interpreter (kept outside every checkout, so a clean clone's run does not unpack the provider SDKs again). The
    copy keeps every file's mtime, so the bytecode stays valid. Its files are hard links where the cache and the
    run share a filesystem (2 s to make here, not 11 s of copying 880 MB): nothing writes into a file of the copy
    (pip adds the wheel's own files; Python replaces a stale .pyc with a new file), so the cache stays as built."""
    pins = [line for line in LOCK.read_text().splitlines() if not line.startswith("#")]  # not its header's digest
    key = "\n".join([*pins, sys.version, sys.base_prefix])
    cache = machine_cache() / "wheel-dependencies"
    home = cache / hashlib.sha256(key.encode()).hexdigest()[:16]
    python = home / "bin" / "python"
    with locked(cache / ".lock"):  # one builder at a time: xdist workers, or runs of several checkouts
        if not (home / ".complete").is_file():
            for stale in cache.iterdir():  # this one half built, or venvs of older locks
                if stale.is_dir():
                    shutil.rmtree(stale, ignore_errors=True)
            venv.EnvBuilder(with_pip=True).create(home)
            subprocess.run([str(python), "-m", "pip", "install", "-q", "--require-hashes", "--no-deps", "--no-compile",
                            "-r", str(LOCK)], check=True, env=quiet_env(), capture_output=True, timeout=INSTALL_BUDGET)
            site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                       check=True, capture_output=True, text=True).stdout.strip())
            reuse_bytecode(site, Path(sysconfig.get_paths()["purelib"]))  # then compile what had no twin, as pip would
            subprocess.run([str(python), "-m", "compileall", "-q", str(site)], check=True, env=quiet_env(),
                           capture_output=True, timeout=INSTALL_BUDGET)
            (home / ".complete").touch()
        linked = subprocess.run(["cp", "-a", "--link", str(home), str(target)], capture_output=True,
                                timeout=INSTALL_BUDGET)
        if linked.returncode != 0:  # another filesystem: copy
            shutil.rmtree(target, ignore_errors=True)
            subprocess.run(["cp", "-a", str(home), str(target)], check=True, timeout=INSTALL_BUDGET)
    (target / ".complete").unlink()


@pytest.fixture(scope="session")
def wheel_venv(wheel, tmp_path_factory) -> Path:
    """The locked dependencies, copied for this run (its workers share them), and the wheel installed among them
    afresh: its `sahab` script is pip's, written for this copy."""
    shared = run_folder()
    home = shared / "wheel-venv" if shared else tmp_path_factory.mktemp("wheel") / "venv"
    with locked(home.parent / "wheel-venv.lock"):
        if not (home / ".complete").is_file():
            shutil.rmtree(home, ignore_errors=True)
            copy_locked_dependencies(home)
            subprocess.run([str(home / "bin" / "python"), "-m", "pip", "install", "-q", "--force-reinstall",
                            "--no-deps", str(wheel)], check=True, env=quiet_env(), capture_output=True, timeout=300)
            (home / ".complete").touch()
    return home

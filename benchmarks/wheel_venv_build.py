"""What building the tests' `wheel_venv` costs (tests/conftest.py: a fresh virtualenv holding requirements.lock),
as it is built today and as it could be: pip installs the lock without compiling bytecode, then the bytecode of
every file that is byte for byte the same in the environment running this script (same RECORD hash: the same
wheel of the same version) is copied over, with the source's mtime, so Python accepts it, and the rest compiled
(tools/bytecode.py, as tests/conftest.py builds it).

For each way it prints the build's CPU seconds and then `sahab check --format json` of a few corpus programs run
with that virtualenv (a program with no virtualenv of its own runs on Sahab's interpreter, and the engine runs
it with PYTHONDONTWRITEBYTECODE: whatever is not compiled at install is compiled again on every run).

    .venv/bin/python benchmarks/wheel_venv_build.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.bytecode import reuse_bytecode  # noqa: E402  (the tests' own way, measured as they build it)

LOCK = ROOT / "requirements.lock"
PROGRAMS = ["aws-py-s3-folder", "azure-py-webserver", "kubernetes-py-nginx"]


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def quiet_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONWARNINGS"] = "ignore"
    return env


def build(home: Path, way: str, wheel: Path) -> float:
    before = children_cpu()
    venv.EnvBuilder(with_pip=True).create(home)
    python = home / "bin" / "python"
    flags = ["--no-compile"] if way == "reuse" else []
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--require-hashes", "--no-deps", *flags, "-r",
                    str(LOCK)], check=True, env=quiet_env(), capture_output=True)
    start = time.process_time()
    if way == "reuse":
        site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   check=True, capture_output=True, text=True).stdout.strip())
        print(f"  bytecode reused for {reuse_bytecode(site, Path(sysconfig.get_paths()['purelib']))} files")
        subprocess.run([str(python), "-m", "compileall", "-q", str(site)], check=True, env=quiet_env(),
                       capture_output=True)
    own = time.process_time() - start
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True,
                   env=quiet_env(), capture_output=True)
    return children_cpu() - before + own


def checks(home: Path) -> float:
    before = children_cpu()
    corpus = ROOT / "tests" / "e2e" / "corpus" / "pulumi-examples"
    with tempfile.TemporaryDirectory() as elsewhere:
        for name in PROGRAMS:
            subprocess.run([str(home / "bin" / "sahab"), "check", "--program", str(corpus / name), "--format", "json"],
                           cwd=elsewhere, env=quiet_env(), capture_output=True, check=False)
    return children_cpu() - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, default=None, help="build the virtualenvs here and keep them")
    args = parser.parse_args()
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="wheel-venv-bench-"))
    wheel_dir = scratch / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                    str(wheel_dir), str(ROOT)], check=True, env=quiet_env(), capture_output=True)
    (wheel,) = wheel_dir.glob("sahab-*.whl")
    print(f"{'way':<10} {'build s CPU':>12} {'checks s CPU':>13}  ({', '.join(PROGRAMS)}, each run twice)")
    for way in ("compile", "reuse"):
        home = scratch / way
        shutil.rmtree(home, ignore_errors=True)
        built = build(home, way, wheel)
        checked = checks(home) + checks(home)
        print(f"{way:<10} {built:12.1f} {checked:13.1f}")
    if args.keep is None:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

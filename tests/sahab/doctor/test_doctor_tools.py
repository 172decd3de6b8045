"""`sahab doctor`: one line per check, exit 1 when one fails, and the tools area asked of a real PATH."""

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _doctor(*args: str, path: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": path}
    return subprocess.run([sys.executable, "-m", "sahab", "doctor", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _fake_pulumi(folder: Path, printed: str) -> str:
    tool = folder / "pulumi"
    tool.write_text(f"#!/bin/sh\necho '{printed}'\n")
    tool.chmod(0o755)
    return f"{folder}:/usr/bin:/bin"


def _tools(done: subprocess.CompletedProcess) -> dict[str, dict]:
    return {c["name"]: c for c in json.loads(done.stdout)["checks"] if c["area"] == "tools"}


def test_missing_pulumi_cli_fails_with_the_install_step(tmp_path):
    done = _doctor("--stack", "smb", "--only", "tools", path="/usr/bin:/bin")
    assert done.returncode == 1, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if "pulumi CLI" in ln)
    assert line.startswith("fail") and "not on PATH" in line and "install" in line


def test_pulumi_cli_at_least_the_sdk_passes(tmp_path):
    done = _doctor("--stack", "smb", "--only", "tools", "--format", "json",
                   path=_fake_pulumi(tmp_path, f"v{version('pulumi')}"))
    assert done.returncode == 0, done.stdout + done.stderr
    found = _tools(done)
    assert found["pulumi CLI"]["status"] == "ok" and found["python"]["status"] == "ok"


def test_pulumi_cli_older_than_the_sdk_names_the_upgrade(tmp_path):
    done = _doctor("--stack", "smb", "--only", "tools", "--format", "json", path=_fake_pulumi(tmp_path, "v3.1.0"))
    assert done.returncode == 1
    check = _tools(done)["pulumi CLI"]
    assert check["status"] == "fail" and version("pulumi") in check["remedy"]


def test_unknown_area_is_a_usage_error(tmp_path):
    done = _doctor("--stack", "smb", "--only", "nosuch", path="/usr/bin:/bin")
    assert done.returncode == 2
    assert done.stderr.startswith("error:") and "tools" in done.stderr and "Traceback" not in done.stderr

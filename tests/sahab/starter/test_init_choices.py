"""`sahab init`'s questions (scripted stdin and a real pseudo-terminal) and `--bench` over SSH on the test hosts."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from sahab.starter.bench import bench_all
from sahab.starter.probe import probe
from sahab.starter.propose import Choices, propose
from sahab.starter.ssh import SshTarget
from tests.sahab.starter.conftest import ROOT, SPARE_DISK_ID, sahab

pytestmark = pytest.mark.hosts
MIRROR = "registry.office.example.ae:5000"


def _args(site, project, host, *extra):
    return ["init", "office", "--program", str(project), "--identity", str(site["key"]), "--accept-new-host-keys",
            "--host", f"{host.address}:{host.port}", *extra]


def _fleet(project: Path) -> dict:
    return yaml.safe_load((project / "stacks" / "Pulumi.office.yaml").read_text())["config"]["sahab:fleet"]


def test_scripted_answers_change_the_choices(site, project):
    smb1 = site["hosts"][0]
    # emirate (a wrong one first), city (default), trains, pools, smb1's disk, team, mirror
    answers = "mars\nabu-dhabi\n\nyes\nby-class\n\nresearch\n" + MIRROR + "\n"
    done = sahab(*_args(site, project, smb1), stdin=answers)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "'mars': allowed: abu-dhabi" in done.stdout
    fleet = _fleet(project)
    assert fleet["sites"][0]["emirate"] == "abu-dhabi" and fleet["sites"][0]["city"] == "Abu Dhabi"
    assert fleet["workload"]["teams"][0]["name"] == "research" and fleet["registries"]["onprem"]["host"] == MIRROR


def test_a_terminal_session(site, project):
    """The questions as a person sees them on a terminal: prompts with the proposal in brackets."""
    smb1 = site["hosts"][0]
    master, slave = pty.openpty()
    process = subprocess.Popen([str(ROOT / ".venv/bin/python"), "-m", "sahab", *_args(site, project, smb1,
                                "--team", "vision", "--registry-mirror", MIRROR)],
                               stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, close_fds=True)
    os.close(slave)
    seen, script = b"", [(b"emirate the servers stand in []: ", b"dubai\n"), (b"city [Dubai]: ", b"\n"),
                         (b"train (yes/no) [yes]: ", b"no\n"), (b"[by-class]: ", b"\n"),
                         (f"/dev/disk/by-id/{SPARE_DISK_ID}]: ".encode(), b"\n"),
                         (b"team that trains [vision]: ", b"\n"), (b"or none [" + MIRROR.encode() + b"]: ", b"\n")]
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
        if script and seen.endswith(script[0][0]):
            os.write(master, script.pop(0)[1])
    process.wait(timeout=60)
    os.close(master)
    text = seen.decode(errors="replace")
    # One host that does not train: nothing left to train on, refused in one line.
    assert not script, text
    assert process.returncode == 2 and "no host trains" in text and "Traceback" not in text


def test_force_keeps_a_backup_and_bench_where_the_host_cannot_run_it(site, project):
    smb1 = site["hosts"][0]
    (project / "stacks" / "Pulumi.office.yaml").write_text("config: {}\n")
    done = sahab(*_args(site, project, smb1, "--non-interactive", "--emirate", "dubai", "--registry-mirror", MIRROR,
                        "--bench", "--force"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bench: host smb1" in done.stdout and "`sahab` is not installed there" in done.stdout
    assert _fleet(project)["sites"][0]["hosts"][0]["name"] == "smb1"
    assert (project / "stacks" / "Pulumi.office.yaml.bak").read_text() == "config: {}\n"
    assert not (project / "stacks" / "office.baselines").exists()


@pytest.fixture(scope="module")
def local_bench(tmp_path_factory) -> dict:
    """Two real `sahab bench` runs on this machine (the test hosts have no torch): as measured, and against a
    baseline that says its class does a thousand times better."""
    folder = tmp_path_factory.mktemp("bench")
    base = [str(ROOT / ".venv/bin/python"), "-m", "sahab", "bench", "--format", "json", "--probes", "gemm_fp32",
            "--time-budget", "5"]
    measured = subprocess.run(base, capture_output=True, text=True, timeout=120, cwd=ROOT)
    raw = json.loads(measured.stdout)
    baseline = folder / "high.json"
    baseline.write_text(json.dumps({"hardware_class": raw["hardware_class"], "values": {"gemm_fp32": 1e9 * 1e6}}))
    high = subprocess.run([*base, "--baseline", str(baseline)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    return {"measured": (measured.returncode, measured.stdout), "high": (high.returncode, high.stdout)}


def _replay(host, name: str, rc: int, stdout: str) -> str:
    """A runner on the host that answers with a recorded real run (and its exit code), whatever it is asked."""
    host.path(f"/usr/local/share/{name}.json").write_text(stdout)
    tool = host.path(f"/usr/local/bin/{name}")
    tool.write_text(f"#!/bin/sh\ncat /usr/local/share/{name}.json\nexit {rc}\n")
    tool.chmod(0o755)
    return name


@pytest.mark.parametrize("run", ["measured", "high"])
def test_bench_results_over_ssh(site, tmp_path, local_bench, run):
    smb1 = site["hosts"][0]
    rc, stdout = local_bench[run]
    target = SshTarget(smb1.address, smb1.port, "sahab", str(site["key"]), (tmp_path / "known",), True)
    (tmp_path / "known").write_text(smb1.known_hosts_line + "\n")
    facts = probe(target)
    proposal = propose([facts], Choices(name="office", emirate="dubai", city="Dubai"))
    out = io.StringIO()
    stack = tmp_path / "stacks" / "Pulumi.office.yaml"
    verdict = bench_all(proposal, [target], _replay(smb1, f"bench-{run}", rc, stdout), stack, out)
    text, raw = out.getvalue(), json.loads(stdout)
    baseline = tmp_path / "stacks" / "office.baselines" / "smb1.json"
    if raw["verdict"] == "pass":
        assert verdict == 0 and json.loads(baseline.read_text())["hardware_class"] == raw["hardware_class"], text
    elif raw["verdict"] == "fail":  # the high baseline, on a machine quiet enough to judge
        assert verdict == 1 and "below its class's floors" in text and "gemm_fp32" in text and not baseline.exists()
    else:  # a busy machine: the bench says so, and so does init
        assert verdict == 1 and "inconclusive" in text and not baseline.exists()
    if run == "high":
        assert raw["verdict"] != "pass"

"""`sahab audit aws` against an endpoint that accepts and never answers, outputs it could not write, and a scan
that outlives its time budget: each ends with a clear answer instead of minutes of silence."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sahab.audit.clients import MAX_ATTEMPTS, ClientFactory
from sahab.audit.scanner import run_tasks
from sahab.audit.tasks import Outcome, Task
from sahab.cli import main
from sahab.schema import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def fake_aws_environment(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.chdir(tmp_path)


class SilentEndpoint:
    """A TCP server on loopback that accepts every connection, reads, and never answers."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        self.held: list[socket.socket] = []
        self.closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            self.held.append(conn)

    def close(self):
        self.closed.set()
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def silent():
    server = SilentEndpoint()
    yield server
    server.close()


def sahab(*args: str, budget_s: float = 120) -> subprocess.CompletedProcess:
    """The real command in its own process, so a hang fails the test instead of stalling it."""
    return subprocess.run([sys.executable, "-m", "sahab", *args], capture_output=True, text=True, timeout=budget_s,
                          cwd=os.getcwd(), env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_an_endpoint_that_never_answers_ends_in_one_error_line_after_bounded_attempts(silent, tmp_path):
    done = sahab("audit", "aws", "--endpoint-url", silent.url, "--timeout", "3", "--evidence-dir", str(tmp_path))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the AWS endpoint http://127.0.0.1:"), done.stderr
    assert f"did not answer sts:GetCallerIdentity ({MAX_ATTEMPTS} attempts, 1 s each)" in lines[0]
    assert silent.connections <= MAX_ATTEMPTS  # retries are bounded: no eighth attempt
    assert "Traceback" not in done.stderr


def test_the_default_per_call_limits_suit_an_interactive_tool():
    """Worst case for one unanswered call: connect + read timeouts times the attempts, about a minute."""
    config = ClientFactory().config
    assert config.connect_timeout <= 10 and config.read_timeout <= 20
    assert config.retries["total_max_attempts"] == MAX_ATTEMPTS <= 4
    from sahab.commands import audit

    parser = __import__("argparse").ArgumentParser()
    audit.add_arguments(parser)
    text = parser.format_help()
    assert f"{config.connect_timeout:g} s" in text and f"{config.read_timeout:g} s" in text
    assert f"{MAX_ATTEMPTS} attempts" in text


@pytest.mark.parametrize("target", ["missing-folder/report.json", "a-folder", "a-file/report.json"])
def test_an_unwritable_output_is_refused_before_any_scan(silent, tmp_path, capsys, target):
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-file").write_text("x")
    code = main(["audit", "aws", "--endpoint-url", silent.url, "--output", str(tmp_path / target),
                 "--evidence-dir", str(tmp_path / "evidence")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"error: --output {tmp_path / target}: ") and err.count("\n") == 1, err
    assert silent.connections == 0  # refused before the first call


def test_an_evidence_dir_under_a_file_is_refused_before_any_scan(silent, tmp_path, capsys):
    (tmp_path / "a-file").write_text("x")
    code = main(["audit", "aws", "--endpoint-url", silent.url, "--evidence-dir", str(tmp_path / "a-file" / "ev")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --evidence-dir ") and "is a file, not a folder" in err
    assert silent.connections == 0


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf"])
def test_a_timeout_that_is_no_budget_is_refused(silent, capsys, value):
    assert main(["audit", "aws", "--endpoint-url", silent.url, "--timeout", value]) == 2
    assert capsys.readouterr().err.startswith("error: --timeout: ")
    assert silent.connections == 0


def test_tasks_still_running_at_the_deadline_are_reported_unverified_and_not_waited_for():
    release = threading.Event()

    def quick(_clients):
        return Outcome()

    def stuck(_clients):
        release.wait(60)
        return Outcome()

    tasks = [Task("s3", "me-central-1", "buckets", quick), Task("kms", "me-central-1", "keys", stuck),
             Task("ec2", "eu-west-1", "volumes", stuck, resource="vol-1")]
    started = time.monotonic()
    try:
        outcomes = list(run_tasks(tasks, None, max_workers=4, deadline=time.monotonic() + 0.5))
        waited = time.monotonic() - started
    finally:
        release.set()
    errors = [e for o in outcomes for e in o.errors]
    assert sorted((e.service, e.region, e.operation, e.code, e.resource) for e in errors) == [
        ("ec2", "eu-west-1", "volumes", "TimeBudgetExceeded", "vol-1"),
        ("kms", "me-central-1", "keys", "TimeBudgetExceeded", None)]
    assert len(outcomes) == 3
    assert waited < 60  # returned at the deadline, not when the stuck calls ended


def test_every_audit_json_document_carries_the_schema_version(tmp_path, capsys):
    from moto import mock_aws

    with mock_aws():
        for fmt in ("json", "sarif"):
            code = main(["audit", "aws", "--scan-regions", "me-central-1", "--format", fmt,
                         "--evidence-dir", str(tmp_path / fmt)])
            out = json.loads(capsys.readouterr().out)
            assert code in (0, 1)  # an empty account still has account-level findings (EBS default encryption)
            version = out["schemaVersion"] if fmt == "json" else out["properties"]["schemaVersion"]
            assert version == SCHEMA_VERSION
            assert json.loads((tmp_path / fmt / "audit.json").read_text())["schemaVersion"] == SCHEMA_VERSION

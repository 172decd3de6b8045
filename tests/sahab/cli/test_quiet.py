"""--quiet prints only failures: a passing check or a ready plan prints nothing, a failing one only what failed."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

from sahab.cli import main
from sahab.policy_check import CheckResult, Violation, Waived
from sahab.report_text import render_text

ROOT = Path(__file__).resolve().parents[3]


def _result(*violations: Violation) -> CheckResult:
    plan = SimpleNamespace(project="sahab", stack="prod", resources=[], program_dir=ROOT, config={},
                           update_failure=None)
    waived = [Waived("aws-s3-bucket-versioning", "SAHAB-AWS-021", "urn:w", "m", "a@example.ae", "2027-01-01", "legacy")]
    return CheckResult(plan, list(violations), waived, {})


MANDATORY = Violation("aws-s3-bucket-sse-kms-cmk", "SAHAB-AWS-010", "mandatory", "high", "urn:a",
                      "aws:s3/bucket:Bucket", "data", "not encrypted with a customer key")
ADVISORY = Violation("kubernetes-all-workload-image-digest-pinned", "SAHAB-K8S-013", "advisory", "medium", "urn:b",
                     "kubernetes:apps/v1:Deployment", "web", "image not pinned by digest")


def _text(result: CheckResult, quiet: bool) -> str:
    out = io.StringIO()
    render_text(result, out, quiet=quiet)
    return out.getvalue()


def test_quiet_check_prints_the_mandatory_violations_and_the_verdict_only():
    full, quiet = _text(_result(MANDATORY, ADVISORY), False), _text(_result(MANDATORY, ADVISORY), True)
    for shown in (full, quiet):
        assert "SAHAB-AWS-010" in shown and "FAILED: 1 mandatory, 1 advisory, 1 waived" in shown
    assert "SAHAB-K8S-013" in full and "waived:" in full
    assert "SAHAB-K8S-013" not in quiet and "waived:" not in quiet


def test_quiet_check_of_a_passing_stack_prints_nothing():
    assert _text(_result(ADVISORY), True) == ""
    assert "passed: 0 mandatory, 1 advisory" in _text(_result(ADVISORY), False)


def test_quiet_plan_of_a_ready_stack_prints_nothing(capsys):
    assert main(["plan", "--stack", "smb", "--quiet"]) == 0
    assert capsys.readouterr().out == ""

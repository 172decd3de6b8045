"""`make demo` (tools/demo.py): a first run that teaches, in a screen per stack."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from sahab.policy_check import CheckResult, Violation, Waived

ROOT = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location("demo", ROOT / "tools" / "demo.py")
demo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(demo)


def test_the_demo_of_a_stack_fits_a_screen_and_names_kinds_readiness_and_verdict():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "demo.py"), "smb"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert len(lines) <= 20, done.stdout
    assert lines[0].startswith("smb: ") and " resources from " in lines[0]
    assert lines[1].startswith("  resources ") and " Namespace" in lines[1]
    assert any(line.startswith("  readiness  ready") for line in lines)
    assert any(line.strip().startswith("office: ") and "train-office-cpu -> office-cpu x2" in line for line in lines)
    assert any(line.startswith("  policy     passed: ") for line in lines)
    assert "make demo VERBOSE=1" in lines[-1]


def _resource(type_: str, custom: bool = True):
    return SimpleNamespace(type=type_, custom=custom)


def test_waivers_are_grouped_by_rule_with_count_owner_and_first_expiry():
    plan = SimpleNamespace(project="sahab", stack="prod", resources=[
        _resource("sahab:index:Fleet", custom=False), _resource("pulumi:providers:aws"),
        *[_resource("aws:s3/bucket:Bucket")] * 3, _resource("kubernetes:core/v1:Namespace")], update_failure=None)
    waived = [Waived("aws-s3-bucket-sse-kms-cmk", "SAHAB-AWS-030", f"urn:{i}", "m", "a@example.ae",
                     f"2027-0{i + 1}-01", "r") for i in range(3)]
    waived += [Waived("kubernetes-all-workload-image-digest-pinned", "SAHAB-K8S-013", "urn:x", "m", "b@example.ae",
                      "2027-05-01", "r")]
    violation = Violation("aws-s3-bucket-versioning", "SAHAB-AWS-002", "mandatory", "high", "urn:y",
                          "aws:s3/bucket:Bucket", "logs", "off")
    checked = CheckResult(plan, [violation], waived, {"aws-s3-bucket-sse-kms-cmk": "mandatory"})
    readiness = SimpleNamespace(ok=True, problems=[], placements=[])
    rule_ids = {"aws-s3-bucket-sse-kms-cmk": "SAHAB-AWS-010",
                "kubernetes-all-workload-image-digest-pinned": "SAHAB-K8S-013"}
    lines = demo.summary("prod", plan, readiness, checked, rule_ids, verbose=False)
    assert lines[0].startswith("prod: 4 resources from 1 components")
    assert lines[1] == "  resources  3 Bucket, 1 Namespace"
    assert "FAILED: 1 rules, 1 mandatory, 0 advisory, 4 waived" in lines[3]
    assert lines[4].split() == ["mandatory", "SAHAB-AWS-002", "aws-s3-bucket-versioning", "(1", "resources)"]
    waivers = [line for line in lines if line.strip().startswith("waived ")]
    assert waivers == [
        "    waived    SAHAB-AWS-010   aws-s3-bucket-sse-kms-cmk: 3 resources, a@example.ae, expires 2027-01-01",
        "    waived    SAHAB-K8S-013   kubernetes-all-workload-image-digest-pinned: 1 resources, b@example.ae, "
        "expires 2027-05-01"]

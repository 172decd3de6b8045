"""A program that breaks residency, with waivers about to expire or expired and a live audit merged in: the bundle
says which resources fail which rules and which controls fail, flags the waivers, and carries the audit's own
evidence under the signature."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os

import pytest
import yaml

from sahab.cli import main
from tests.sahab.evidence.conftest import ROOT

RAW_AWS = ROOT / "tests" / "fixtures" / "programs" / "raw_aws"
URN = "urn:pulumi:dev::raw-aws::"
LOGS = URN + "aws:s3/bucketV2:BucketV2::logs"  # in the stack's eu-west-1
REMOTE = URN + "aws:s3/bucketV2:BucketV2::remote"  # through a Frankfurt provider


@pytest.fixture
def fake_aws(monkeypatch, tmp_path):
    """moto in this process, test credentials, none of the caller's AWS configuration."""
    from moto import mock_aws

    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    with mock_aws():
        yield


@pytest.mark.moto
def test_a_failing_program_with_flagged_waivers_and_a_live_audit(fake_aws, keys, tmp_path, capsys):
    import boto3

    boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="legacy-exports")
    live = tmp_path / "live" / "audit.json"
    live.parent.mkdir()
    code = main(["audit", "aws", "--scan-regions", "us-east-1", "me-central-1", "--evidence", str(live)])
    capsys.readouterr()
    assert code == 1 and live.is_file() and live.with_suffix(".html").is_file()

    today = dt.datetime.now(dt.UTC).date()
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text(yaml.safe_dump({"waivers": [
        {"policy": "SAHAB-AWS-001", "resource": LOGS, "owner": "dpo@example.ae", "reason": "moving to me-central-1",
         "granted": today - dt.timedelta(days=10), "expires": today + dt.timedelta(days=5)},
        {"policy": "SAHAB-AWS-001", "resource": REMOTE, "owner": "dpo@example.ae", "reason": "was moving",
         "granted": today - dt.timedelta(days=40), "expires": today - dt.timedelta(days=1)},
    ]}))
    out = tmp_path / "bundle"
    code = main(["evidence", "--program", str(RAW_AWS), "--stack", "dev", "--out", str(out), "--key",
                 str(keys["key"]), "--waivers", str(waivers), "--audit", str(live), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert {p.name for p in out.iterdir()} == {"evidence.json", "evidence.html", "controls.csv", "audit.json",
                                               "evidence.intoto.jsonl"}
    assert (out / "audit.json").read_bytes() == live.read_bytes()
    assert main(["evidence", "verify", str(out), "--public-key", str(keys["pub"])]) == 0
    assert capsys.readouterr().out.startswith("verified: 4 files of raw-aws/dev")

    doc = json.loads((out / "evidence.json").read_text())
    assert doc["summary"]["passed"] is False
    region = next(r for r in doc["rules"] if r["id"] == "SAHAB-AWS-001")
    verdicts = {v["urn"]: v for v in region["verdicts"]}
    assert verdicts[LOGS]["verdict"] == "waived" and verdicts[LOGS]["waiver"] == f"SAHAB-AWS-001 @ {LOGS}"
    assert verdicts[REMOTE]["verdict"] == "fail" and "expired" in " ".join(verdicts[REMOTE]["messages"])
    assert URN + "aws:kms/key:Key::key" not in verdicts  # a stack rule names only what it finds wrong
    assert region["scope"] == "stack" and region["verdict"] == "fail"
    key_rotation = next(r for r in doc["rules"] if r["id"] == "SAHAB-AWS-014")  # a resource rule: every key
    assert {v["urn"]: v["verdict"] for v in key_rotation["verdicts"]} == {URN + "aws:kms/key:Key::key": "fail"}
    register = {w["resource"]: w for w in doc["waivers"]}
    assert (register[LOGS]["status"], register[LOGS]["daysLeft"]) == ("expiring", 5)
    assert (register[REMOTE]["status"], register[REMOTE]["granted"]) == ("expired", str(today - dt.timedelta(40)))
    controls = {(c["framework"].split(" ")[0], c["id"]): c for c in doc["controls"]}
    for key in (("UAE", "Art. 22"), ("UAE", "Art. 13"), ("ISO/IEC", "A.5.34"), ("UAE", "M5")):
        assert controls[key]["status"] == "fail", key
        assert controls[key]["waivers"] == [f"SAHAB-AWS-001 @ {LOGS}"]  # the expired one is not in force
        assert controls[key]["live"]["findings"] >= 1  # the live account's us-east-1 bucket

    assert doc["audit"]["sha256"] and doc["audit"]["account"] == "123456789012"
    assert any(f["resource"] == "arn:aws:s3:::legacy-exports" for f in doc["audit"]["findings"])
    rows = list(csv.DictReader(io.StringIO((out / "controls.csv").read_text())))
    art22 = {(r["rule"], r["resource"]): r["verdict"] for r in rows if r["control"] == "Art. 22"
             and r["framework"].startswith("UAE PDPL")}
    assert art22[("SAHAB-AWS-001", REMOTE)] == "fail" and art22[("SAHAB-AWS-001", LOGS)] == "waived"
    html = (out / "evidence.html").read_text()
    assert "EXPIRED" in html and "expires in 5 days" in html and "arn:aws:s3:::legacy-exports" in html

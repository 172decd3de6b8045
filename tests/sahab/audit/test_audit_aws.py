"""`sahab audit aws` end to end against a moto account seeded with compliant and non-compliant resources."""

from __future__ import annotations

import datetime as dt
import json

import boto3
import pytest

from sahab.cli import main
from tests.sahab.audit.audit_seed import EU, ME, US, seed_account, volume, volume_arn

pytestmark = pytest.mark.moto
THREE_REGIONS = ["--scan-regions", ME, EU, US]


def audit(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["audit", "aws", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_finding_by_rule_and_resource_and_nothing_else(aws, capsys, tmp_path):
    seeded = seed_account()
    code, out, _ = audit(capsys, *THREE_REGIONS, "--format", "json", "--evidence-dir", str(tmp_path / "ev"))
    report = json.loads(out)
    assert code == 1
    assert {(f["rule"], f["resource"]) for f in report["findings"]} == seeded.expected
    assert report["errors"] == []
    # Compliant resources were scanned and judged, and produced no finding.
    flagged = {f["resource"] for f in report["findings"]}
    scanned = {r["id"] for r in json.loads((tmp_path / "ev" / "audit.json").read_text())["resources"]}
    for compliant in ("sahab-data-ok", "me-volume-ok", "me-snapshot-ok", "me-key", "me-cluster-ok"):
        assert seeded.ids[compliant] in scanned
        assert seeded.ids[compliant] not in flagged
    by_rule = {f["rule"]: f for f in report["findings"]}
    replication = by_rule["SAHAB-AWS-004"]["message"]
    assert replication.startswith("`rules[0].destination.bucket`") and "'eu-west-1'" in replication
    assert "outside the allowed places" in replication
    assert by_rule["SAHAB-AWS-001"]["enforcement"] == "mandatory"
    assert report["summary"]["passed"] is False


def test_evidence_json_and_html_record_the_run(aws, capsys, tmp_path):
    seeded = seed_account()
    evidence = tmp_path / "evidence"
    code, out, err = audit(capsys, *THREE_REGIONS, "--evidence-dir", str(evidence))
    assert code == 1
    assert f"evidence: {evidence / 'audit.json'}" in err
    record = json.loads((evidence / "audit.json").read_text())
    assert record["account"] == "123456789012"
    assert record["regionsScanned"] == sorted([ME, EU, US])
    assert record["scanLimitedToRegions"] is True
    assert record["allowedRegions"] == ["me-central-1", "uaenorth", "uaecentral"]
    assert record["started"] <= record["finished"]
    rules = {r["id"]: r for r in record["rules"]}
    assert {"SAHAB-AWS-001", "SAHAB-AWS-010", "SAHAB-AWS-012", "SAHAB-AWS-090", "SAHAB-AWS-091"} <= set(rules)
    assert rules["SAHAB-AWS-001"]["severity"] == "critical"
    assert {(f["rule"], f["resource"]) for f in record["findings"]} == seeded.expected
    assert record["waived"] == [] and record["errors"] == []
    assert record["summary"]["resources"]["aws:s3/bucket:Bucket"] == 8
    html = (evidence / "audit.html").read_text()
    assert "123456789012" in html and "FAIL" in html
    assert "arn:aws:s3:::sahab-us-legacy" in html and "SAHAB-AWS-090" in html
    # The text report names each broken rule and resource too.
    assert "SAHAB-AWS-015" in out and "fleet-plain" in out and "FAIL" in out


def test_waivers_are_applied_by_arn_and_recorded(aws, capsys, tmp_path):
    seed_account()
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text(
        "waivers:\n"
        "  - policy: SAHAB-AWS-001\n"  # residency: one concrete resource, at most 90 days
        "    resource: 'arn:aws:s3:::sahab-us-legacy'\n"
        "    reason: Legacy bucket being migrated to me-central-1 (OPS-42)\n"
        "    approver: ciso@example.ae\n"
        f"    expires: {dt.datetime.now(dt.UTC).date() + dt.timedelta(days=60)}\n"
        "  - policy: aws-s3-bucket-sse-kms-cmk\n"
        "    resource: arn:aws:s3:::sahab-us-legacy\n"
        "    reason: Expired exception\n"
        "    approver: ciso@example.ae\n"
        "    expires: 2020-01-31\n")
    code, out, _ = audit(capsys, *THREE_REGIONS, "--format", "json", "--waivers", str(waivers),
                         "--evidence-dir", str(tmp_path / "ev"))
    report = json.loads(out)
    legacy = "arn:aws:s3:::sahab-us-legacy"
    findings = {(f["rule"], f["resource"]): f for f in report["findings"]}
    assert ("SAHAB-AWS-001", legacy) not in findings
    assert [(w["rule"], w["resource"], w["waiver"]["approver"]) for w in report["waived"]] == [
        ("SAHAB-AWS-001", legacy, "ciso@example.ae")]
    assert findings[("SAHAB-AWS-010", legacy)]["expiredWaiver"]["expires"] == "2020-01-31"
    record = json.loads((tmp_path / "ev" / "audit.json").read_text())
    assert record["waived"][0]["waiver"]["reason"] == "Legacy bucket being migrated to me-central-1 (OPS-42)"
    assert record["waiversFile"] == str(waivers)
    assert "OPS-42" in (tmp_path / "ev" / "audit.html").read_text()
    assert code == 1  # other mandatory findings remain


def test_clean_account_exits_zero_and_encryption_by_default_off_fails(aws, capsys, tmp_path):
    code, out, _ = audit(capsys, "--scan-regions", ME, "--format", "json", "--evidence-dir", str(tmp_path / "a"))
    assert code == 1
    assert [(f["rule"], f["region"]) for f in json.loads(out)["findings"]] == [("SAHAB-AWS-091", ME)]
    boto3.client("ec2", region_name=ME).enable_ebs_encryption_by_default()
    code, out, _ = audit(capsys, "--scan-regions", ME, "--evidence-dir", str(tmp_path / "b"))
    assert code == 0
    assert "PASS: 0 findings" in out
    assert json.loads((tmp_path / "b" / "audit.json").read_text())["summary"]["passed"] is True


def test_sarif_names_rules_and_suppresses_waived(aws, capsys, tmp_path):
    seeded = seed_account()
    waivers = tmp_path / "waivers.yaml"
    soon = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=30)  # a mandatory rule: one resource, 90 days at most
    waivers.write_text(f"waivers:\n  - {{policy: SAHAB-AWS-012, resource: '{seeded.ids['me-volume-plain']}', "
                       f"reason: scratch disk, approver: ops@example.ae, expires: {soon}}}\n")
    code, out, _ = audit(capsys, *THREE_REGIONS, "--format", "sarif", "--waivers", str(waivers),
                         "--evidence-dir", str(tmp_path / "ev"))
    assert code == 1
    run = json.loads(out)["runs"][0]
    assert json.loads(out)["version"] == "2.1.0"
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    results = {(r["ruleId"], r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]): r
               for r in run["results"]}
    assert set(results) == seeded.expected
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
    waived = results[("SAHAB-AWS-012", seeded.ids["me-volume-plain"])]
    assert waived["suppressions"][0]["justification"].startswith("scratch disk")
    assert results[("SAHAB-AWS-001", seeded.ids["eu-key"])]["level"] == "error"
    assert results[("SAHAB-AWS-020", seeded.ids["sahab-no-pab"])]["level"] == "warning"  # advisory


def test_every_enabled_region_is_scanned_by_default(aws, capsys, tmp_path):
    far = volume("ap-southeast-2", key=None)
    code, out, _ = audit(capsys, "--format", "json", "--evidence-dir", str(tmp_path / "ev"))
    report = json.loads(out)
    scanned = report["regionsScanned"]
    assert {"me-central-1", "ap-southeast-2", "us-east-1", "eu-west-1"} <= set(scanned)
    assert not [r for r in scanned if r.startswith(("us-gov-", "cn-"))]  # other partitions are other accounts
    far_findings = {f["rule"] for f in report["findings"] if f["resource"] == volume_arn("ap-southeast-2", far)}
    assert far_findings == {"SAHAB-AWS-001", "SAHAB-AWS-012"}
    assert code == 1


def test_endpoint_url_sends_every_call_to_a_moto_server_on_loopback(moto_server, capsys, tmp_path):
    s3 = boto3.client("s3", region_name=ME, endpoint_url=moto_server)
    s3.create_bucket(Bucket="served-bucket", CreateBucketConfiguration={"LocationConstraint": ME})
    boto3.client("ec2", region_name=ME, endpoint_url=moto_server).create_volume(
        AvailabilityZone=f"{ME}a", Size=1, Encrypted=False)
    code, out, _ = audit(capsys, "--endpoint-url", moto_server, "--scan-regions", ME, "--format", "json",
                         "--evidence-dir", str(tmp_path / "ev"))
    report = json.loads(out)
    assert code == 1 and report["errors"] == []
    rules = {(f["rule"], f["resource"].rsplit("/", 1)[-1].split(":")[-1]) for f in report["findings"]}
    assert {("SAHAB-AWS-010", "served-bucket"), ("SAHAB-AWS-091", ME)} <= rules
    assert report["summary"]["resources"]["aws:ebs/volume:Volume"] == 1


@pytest.mark.parametrize("order", [
    ["--regions", "me-central-1", "uaenorth", "aws"],  # options first, as the usage line shows them
    ["--regions", "me-central-1,uaenorth", "aws", "--format", "json"],
])
def test_options_before_the_cloud_audit_as_options_after_it(aws, capsys, tmp_path, order):
    args = [*order, "--scan-regions", ME, "--evidence-dir", str(tmp_path / "ev")]
    if "--format" not in args:
        args += ["--format", "json"]
    code = main(["audit", *args])
    out, err = capsys.readouterr()
    assert code == 1, err  # a new account leaves EBS encryption by default off: a finding, not a usage error
    # The cloud was taken back from --regions: the allowed regions are the two given, not "aws".
    assert json.loads(out)["allowedRegions"] == ["me-central-1", "uaenorth"]


@pytest.mark.parametrize(("args", "says"), [
    (["--regions", "me-central-1"], "the cloud to audit is missing; allowed: aws"),
    (["--regions", "aws"], "--regions: expected at least one region before aws"),
    (["gcp"], "invalid choice: 'gcp'"),
])
def test_a_missing_or_unknown_cloud_is_one_error_line(capsys, args, says):
    assert main(["audit", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and says in err and len(err.splitlines()) == 1

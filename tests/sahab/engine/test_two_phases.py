"""`sahab check` judges what `pulumi up` would compute: the preview, then the update run where the preview left a
value unknown. Every rule family gets a violation only an `apply()` body computes, beside its compliant twin;
lookups of existing resources are unknown unless the stack declares them, and a value unknown in both runs
fails closed. Each program is checked once (about 5 s each on an idle machine)."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from sahab.cli import main
from sahab.engine import plan_phases
from sahab.policy_check import check_plan

PROGRAMS = Path(__file__).resolve().parent / "programs"
APPLY = PROGRAMS / "apply_computed"
LOOKUPS = PROGRAMS / "lookups"
# Each violating resource of apply_computed and its compliant twin.
PAIRS = {"volumes": ("vol-bad", "vol-good"), "databases": ("db-bad", "db-good"),
         "storage classes": ("sc-bad", "sc-good"), "bucket policies": ("bp-bad", "bp-good"),
         "IAM documents": ("iam-bad", "iam-good"), "public access": ("blobbad", "blobgood"),
         "endpoints in environment variables": ("env-bad", "env-good"),
         "endpoints in config files": ("conf-bad", "conf-good")}


def _check(program: Path, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        code = main(["check", "--program", str(program), *argv])
    return code, out.getvalue()


@pytest.fixture(scope="module")
def applied() -> dict:
    code, out = _check(APPLY, "--format", "json")
    assert code == 1
    return json.loads(out)


def _mandatory(report: dict, name: str) -> dict[str, dict]:
    return {v["policy"]: v for v in report["violations"] if v["name"] == name and v["enforcement"] == "mandatory"}


@pytest.mark.parametrize("family", PAIRS)
def test_an_apply_computed_violation_is_found_in_the_update_run_and_its_twin_passes(applied, family):
    bad, good = PAIRS[family]  # (the TLS rule names the bucket a computed policy is attached to)
    flagged = _mandatory(applied, bad)
    twin = _mandatory(applied, good)
    only_bad = {policy: v for policy, v in flagged.items() if policy not in twin}
    assert only_bad, f"{bad}: nothing its twin {good} is not also flagged for: {sorted(flagged)}"
    assert {v["phase"] for v in only_bad.values()} == {"update"}


def test_a_preview_alone_sees_none_of_them():
    """What the update run adds: judged on the preview only, the violating resources look like their twins."""
    preview, _ = plan_phases(APPLY, "dev")
    report = check_plan(preview).contract()
    for bad, good in PAIRS.values():
        assert set(_mandatory(report, bad)) <= set(_mandatory(report, good)), bad


def test_every_format_says_which_run_found_each_finding(tmp_path):
    reports = {fmt: tmp_path / f"report.{fmt}" for fmt in ("sarif", "junit", "text")}
    code, out = _check(APPLY, "--format", "json", *[a for fmt, file in reports.items()
                                                      for a in ("--report", f"{fmt}={file}")])
    assert code == 1
    assert {v["phase"] for v in json.loads(out)["violations"]} <= {"preview", "update"}
    sarif = json.loads(reports["sarif"].read_text())
    phases = {r["properties"]["phase"] for r in sarif["runs"][0]["results"]}
    assert "update" in phases and phases <= {"preview", "update"}
    failures = [f.text for f in ET.fromstring(reports["junit"].read_text()).iter("failure")]
    assert any("[update]" in text for text in failures)
    text = reports["text"].read_text()
    assert "[update]" in text and "vol-bad" in text


@pytest.fixture(scope="module")
def looked_up() -> dict:
    code, out = _check(LOOKUPS, "--format", "json")
    assert code == 1
    return json.loads(out)


RESIDENCY = {"azure-all-resource-location-allowed", "aws-all-resource-region-allowed",
             "cloud-all-resource-references-in-country"}


@pytest.mark.parametrize("looked_up_by", ["invoke", "read"])
def test_a_lookups_place_is_unknown_unless_the_stack_declares_the_resource(looked_up, looked_up_by):
    """A resource placed where an existing one is: a group found by `get_resource_group`, a bucket read by
    `Bucket.get`."""
    undeclared, declared = {"invoke": ("acctundeclared", "acctdeclared"),
                            "read": ("queue-undeclared", "queue-declared")}[looked_up_by]
    assert RESIDENCY & set(_mandatory(looked_up, undeclared))
    assert not RESIDENCY & set(_mandatory(looked_up, declared))


def test_a_mandatory_rule_reading_a_value_unknown_in_both_runs_fails_closed_naming_it(looked_up):
    closed = [v for v in looked_up["violations"] if v["name"] == "data-undeclared-sse"
              and v["enforcement"] == "mandatory" and "unknown even in the update run" in v["message"]]
    assert closed and closed[0]["phase"] == "update" and "kmsMasterKeyId" in closed[0]["message"]
    assert not [v for v in looked_up["violations"] if v["name"] == "data-declared-sse"
                and "unknown even in the update run" in v["message"]]


def test_identity_lookups_stay_answered():
    preview, update = plan_phases(LOOKUPS, "dev")
    for run in (preview, update):
        assert run.outputs["account"] == "111122223333"
        assert run.outputs["zones"] == ["me-central-1a", "me-central-1b", "me-central-1c"]
        assert len(run.outputs["tenant"]) == 36


def test_a_malformed_inventory_is_one_error_naming_the_entry(tmp_path):
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: prog\nruntime: python\n")
    (folder / "__main__.py").write_text("import pulumi\n")
    (folder / "Pulumi.dev.yaml").write_text(
        "config:\n  sahab:existing:\n    - {type: aws:s3/bucketV2:BucketV2, id: logs, region: me-central-1}\n"
        "    - {type: azure-native:resources:ResourceGroup, id: rg}\n")
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(["check", "--program", str(folder)])
    lines = err.getvalue().splitlines()
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("error: ") and "sahab:existing[1]" in lines[0] and "location" in lines[0]


def test_a_program_that_cannot_make_its_update_run_offline_is_judged_on_its_preview_saying_so(tmp_path):
    """A secret setting offline cannot decrypt, parsed only when the program really deploys."""
    folder = tmp_path / "secret-login"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: secret-login\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n"
                                           "  secret-login:login:\n    secure: v1:AAAACIPHERTEXT\n")
    (folder / "__main__.py").write_text(
        "import json\nimport pulumi\nimport pulumi_aws as aws\n"
        "login = pulumi.Config().require_secret('login')\n"
        "if not pulumi.runtime.is_dry_run():\n    login.apply(lambda text: json.loads(text)['user'])\n"
        "aws.s3.Bucket('data')\n")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["check", "--program", str(folder), "--format", "json"])
    report = json.loads(out.getvalue())
    assert code == 1 and {v["phase"] for v in report["violations"]} == {"preview"}
    assert "JSONDecodeError" in report["summary"]["update_failure"]
    assert "warning: judged on the preview alone" in err.getvalue() and "AAAACIPHERTEXT" not in err.getvalue()

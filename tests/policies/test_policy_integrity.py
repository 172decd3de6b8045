"""The gate cannot be switched off from the code under review: a program folder's own policy config can only
narrow what the pack and the operator set; bad config and waivers files are exit 2 naming the file and key; the
report says what a stack's config relaxed and carries the schema version."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sahab.cli import main
from sahab.schema import SCHEMA_VERSION

CORPUS = Path(__file__).resolve().parents[1] / "e2e" / "adversarial" / "programs"
COMPLIANT = CORPUS / "place_resource_region_input_uae"  # a VPC in me-central-1: passes every mandatory rule
LEAK = CORPUS / "place_resource_region_input"  # the same VPC in eu-west-1
SQS_LEAK = CORPUS / "enc_sqs_managed_sse"  # a queue under an SQS-managed key


def check(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def program_with_config(tmp_path: Path, source: Path, config: object, raw: bytes | None = None) -> Path:
    program = tmp_path / source.name
    shutil.copytree(source, program)
    folder = program / "policies" / "config"
    folder.mkdir(parents=True)
    (folder / "dev.json").write_bytes(raw if raw is not None else json.dumps(config).encode())
    return program


@pytest.mark.parametrize(("config", "needle"), [
    ({"all": "disabled"}, "can only narrow"),
    ({"all": "advisory"}, "can only narrow"),
    ({"aws-all-resource-region-allowed": "disabled"}, "can only narrow"),
    ({"aws-all-resource-region-allowed": {"enforcementLevel": "advisory"}}, "can only narrow"),
    ({"aws-all-resource-region-allowed": {"allowedRegions": ["me-central-1", "eu-west-1"]}},
     "would widen the allowed set with eu-west-1"),
    ({"cloud-all-resource-references-in-country": {"allowedRegions": ["eu-west-1"]}}, "eu-west-1"),
    # Registries and destinations are allowed by the trusted config alone: the code under review cannot add one.
    ({"kubernetes-all-workload-image-registry-allowed": {"allowedRegistries": ["mirror.gcr.io"]}},
     "would widen the allowed set with mirror.gcr.io"),
    ({"SAHAB-CLOUD-002": {"allowedDestinations": ["https://logs.example.com"]}}, "would widen"),
    ({"sahab-aws-001": "disabled"}, "can only narrow"),  # a rule id, in any case, is the rule
])
def test_program_folder_config_cannot_widen_or_disable(capsys, tmp_path, config, needle):
    program = program_with_config(tmp_path, LEAK, config)
    code, out, err = check(capsys, "--program", str(program))
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("error:") and needle in line and "policies/config/dev.json" in line


def test_program_folder_config_can_narrow(capsys, tmp_path):
    # Raising an advisory rule to mandatory and shrinking the allowed places both apply.
    program = program_with_config(tmp_path, COMPLIANT, {
        "aws-ec2-instance-imdsv2-required": "mandatory",
        "aws-all-resource-region-allowed": {"allowedRegions": ["uaenorth"]}})
    code, out, _ = check(capsys, "--program", str(program), "--format", "json")
    found = {(v["policy"], v["name"], v["enforcement"]) for v in json.loads(out)["violations"]}
    assert code == 1 and ("aws-all-resource-region-allowed", "vpc", "mandatory") in found


def test_ids_and_names_are_interchangeable_in_the_policy_config(capsys, tmp_path):
    operator = tmp_path / "operator.json"
    operator.write_text(json.dumps({"SAHAB-AWS-001": {"allowedRegions": ["me-central-1", "eu-west-1"]},
                                    "sahab-aws-002": "advisory"}))
    code, out, _ = check(capsys, "--program", str(LEAK), "--policy-config", str(operator), "--format", "json")
    report = json.loads(out)
    assert code == 0 and not any(v["id"] == "SAHAB-AWS-001" for v in report["violations"])
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps({"SAHAB-AWS-001": "advisory", "aws-all-resource-region-allowed": "mandatory"}))
    code, _, err = check(capsys, "--program", str(LEAK), "--policy-config", str(twice))
    assert code == 2 and "names aws-all-resource-region-allowed again" in err


def test_operator_config_may_widen(capsys, tmp_path):
    operator = tmp_path / "operator.json"
    operator.write_text(json.dumps({"aws-all-resource-region-allowed": {
        "allowedRegions": ["me-central-1", "eu-west-1"]}}))
    code, out, _ = check(capsys, "--program", str(LEAK), "--policy-config", str(operator), "--format", "json")
    assert code == 0 and not any(v["policy"] == "aws-all-resource-region-allowed"
                                 for v in json.loads(out)["violations"])


@pytest.mark.parametrize(("config", "key"), [
    ({"aws-s3-bucket-made-up": "advisory"}, "aws-s3-bucket-made-up"),
    ({"all": 3}, "all"),
    ({"aws-all-resource-region-allowed": {"allowedRegions": "me-central-1"}}, "allowedRegions"),
    ({"aws-all-resource-region-allowed": {"allowedRegion": ["me-central-1"]}}, "allowedRegion"),
    ({"aws-storage-datastore-encrypted-cmk": {"allowProviderManagedKeys": "yes"}}, "allowProviderManagedKeys"),
    ({"aws-kms-key-rotation-enabled": ["mandatory"]}, "aws-kms-key-rotation-enabled"),
    ({"aws-kms-key-rotation-enabled": "strict"}, "aws-kms-key-rotation-enabled"),
])
def test_unknown_names_and_wrong_types_are_exit_2_naming_the_key(capsys, tmp_path, config, key):
    operator = tmp_path / "operator.json"
    operator.write_text(json.dumps(config))
    code, _, err = check(capsys, "--program", str(COMPLIANT), "--policy-config", str(operator))
    (line,) = err.strip().splitlines()
    assert code == 2 and line.startswith("error:") and key in line and "Traceback" not in err


def test_binary_config_and_waivers_files_are_exit_2_naming_the_file(capsys, tmp_path):
    program = program_with_config(tmp_path, COMPLIANT, None, raw=b"\x00\xff\xfe\x89binary")
    code, _, err = check(capsys, "--program", str(program))
    assert code == 2 and "policies/config/dev.json" in err and len(err.strip().splitlines()) == 1
    waivers = tmp_path / "waivers.yaml"
    waivers.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF")
    code, _, err = check(capsys, "--program", str(COMPLIANT), "--waivers", str(waivers))
    assert code == 2 and str(waivers) in err and "UnicodeDecodeError" in err and "Traceback" not in err


def test_wildcard_residency_waiver_is_refused(capsys, tmp_path):
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("waivers:\n  - {policy: aws-all-resource-region-allowed, resource: '*', reason: r, "
                       "owner: o@example.ae, expires: 2026-01-01}\n")
    code, _, err = check(capsys, "--program", str(LEAK), "--waivers", str(waivers))
    assert code == 2 and "waivers[0].resource" in err


def test_provider_managed_keys_relaxed_only_for_dev_and_smb_and_reported(capsys, tmp_path):
    operator = tmp_path / "operator.json"
    operator.write_text(json.dumps({"aws-storage-datastore-encrypted-cmk": {"allowProviderManagedKeys": True}}))
    code, out, _ = check(capsys, "--program", str(SQS_LEAK), "--policy-config", str(operator), "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["relaxations"] and "provider-managed keys" in report["relaxations"][0]
    code, out, _ = check(capsys, "--program", str(SQS_LEAK), "--policy-config", str(operator))
    assert code == 0 and "relaxed: aws-storage-datastore-encrypted-cmk" in out
    # The same relaxation in a program folder's own config is not narrowing: refused.
    program = program_with_config(tmp_path, SQS_LEAK, {"aws-storage-datastore-encrypted-cmk": {
        "allowProviderManagedKeys": True}})
    code, _, err = check(capsys, "--program", str(program))
    assert code == 2 and "can only narrow" in err


def test_relaxation_refused_for_other_stacks(capsys, tmp_path):
    program = tmp_path / "prod-program"
    shutil.copytree(SQS_LEAK, program)
    (program / "Pulumi.prod.yaml").write_text((program / "Pulumi.dev.yaml").read_text())
    operator = tmp_path / "operator.json"
    operator.write_text(json.dumps({"aws-storage-datastore-encrypted-cmk": {"allowProviderManagedKeys": True}}))
    code, _, err = check(capsys, "--program", str(program), "--stack", "prod", "--policy-config", str(operator))
    assert code == 2 and "allowProviderManagedKeys" in err and "'prod'" in err


def test_json_report_carries_the_schema_version(capsys):
    code, out, _ = check(capsys, "--program", str(COMPLIANT), "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["schemaVersion"] == SCHEMA_VERSION and report["relaxations"] == []

"""The offline engine on a program written with the raw providers: what `sahab plan --format json` promises."""

import json
import subprocess
import sys

import pytest

from sahab.cli import main
from sahab.engine import UNKNOWN, plan
from sahab.schema import SCHEMA_VERSION
from tests.fleets import ROOT

RAW = ROOT / "tests" / "fixtures" / "programs" / "raw_aws"


@pytest.fixture(scope="module")
def raw_plan():
    return plan(RAW, "dev", preview=True)


def _by_name(result, name):
    return next(r for r in result.resources if r.name == name)


def test_json_is_exactly_the_contract(capsys):
    assert main(["plan", "--program", str(RAW), "--stack", "dev", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"schemaVersion", "sahabVersion", "project", "stack", "config", "resources", "readiness"}
    assert doc["schemaVersion"] == SCHEMA_VERSION
    assert doc["readiness"] == {"ok": True, "problems": [], "placements": [], "pools": []}  # nothing to judge
    assert (doc["project"], doc["stack"]) == ("raw-aws", "dev")
    for res in doc["resources"]:
        assert set(res) == {"urn", "type", "name", "parent", "provider", "inputs"}


def test_secrets_never_appear_in_plaintext(capsys):
    secret_ciphertext = "v1:AAAABBBBCCCC"
    assert main(["plan", "--program", str(RAW), "--stack", "dev", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert secret_ciphertext not in out
    doc = json.loads(out)
    assert doc["config"]["raw-aws:dbPassword"] == "[secret]"
    param = next(r for r in doc["resources"] if r["name"] == "db")
    assert param["inputs"]["value"] == "[secret]"


def test_default_providers_take_their_settings_from_the_stack_config(raw_plan):
    logs = _by_name(raw_plan, "logs")
    provider = next(r for r in raw_plan.resources if r.urn == logs.provider)
    assert provider.type == "pulumi:providers:aws"
    assert provider.name.startswith("default_7_")
    assert provider.inputs == {"region": "eu-west-1"}


def test_explicit_providers_are_resources_with_their_inputs(raw_plan):
    remote = _by_name(raw_plan, "remote")
    frankfurt = next(r for r in raw_plan.resources if r.urn == remote.provider)
    assert frankfurt.urn == "urn:pulumi:dev::raw-aws::pulumi:providers:aws::frankfurt"
    assert frankfurt.inputs["region"] == "eu-central-1"


def test_inputs_are_engine_format_camel_case(raw_plan):
    key = _by_name(raw_plan, "key")
    assert key.inputs == {"description": "k", "region": "me-central-1"}
    assert key.type == "aws:kms/key:Key"


def test_a_plan_is_a_preview_what_providers_compute_is_unknown(raw_plan):
    assert raw_plan.preview
    assert raw_plan.outputs["remote_arn"] == UNKNOWN
    assert _by_name(raw_plan, "key").id is None
    # what the provider settles when it checks the inputs is known, as in `pulumi preview`
    assert raw_plan.outputs["bucket"].startswith("logs-")


def test_deployed_mock_outputs_look_like_the_cloud_so_apply_chains_resolve():
    deployed = plan(RAW, "dev", preview=False)
    assert deployed.outputs["remote_arn"].startswith("arn:aws:s3:::remote-")
    key = _by_name(deployed, "key")
    assert key.outputs["arn"] == f"arn:aws:kms:me-central-1:111122223333:key/{key.id}"
    # a resource's region is its provider's, not the stack's
    assert ".s3.eu-central-1." in _by_name(deployed, "remote").outputs["bucketRegionalDomainName"]
    assert ".s3.eu-west-1." in _by_name(deployed, "logs").outputs["bucketRegionalDomainName"]


def test_resources_remember_where_the_program_constructed_them(raw_plan):
    remote = _by_name(raw_plan, "remote")
    file, line = remote.source
    assert file == str(RAW / "__main__.py")
    assert "BucketV2(\"remote\"" in (RAW / "__main__.py").read_text().splitlines()[line - 1]


def test_two_plans_of_the_same_program_are_identical():
    first, second = plan(RAW, "dev", preview=True).contract(), plan(RAW, "dev", preview=True).contract()
    assert first == second


def test_text_output_shows_the_tree_and_counts(capsys):
    assert main(["plan", "--program", str(RAW), "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert "raw-aws / stack dev" in out
    assert "aws:s3/bucketV2:BucketV2" in out and "│     2 │" in out


def test_help_imports_no_cloud_sdk():
    """`sahab --help` must stay fast: building the parser imports none of the heavy SDKs (nor pydantic, which
    only some commands' arguments need: every command's start would pay ~0.2 s of CPU for it)."""
    code = ("import sys; from sahab.cli import build_parser; build_parser().format_help(); "
            "heavy = [m for m in ('pulumi', 'torch', 'boto3', 'pulumi_aws', 'ansible_runner', 'pydantic') "
            "if m in sys.modules]; "
            "print(','.join(heavy))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == ""


def test_a_stack_reference_reads_the_outputs_the_other_stack_exports():
    program = ROOT / "tests" / "fixtures" / "programs" / "stackref"
    base = plan(program, "base")  # a referenced stack reads as deployed: outputs known
    assert base.outputs["token"] == "[secret]"
    peak = plan(program, "peak", preview=True)
    bucket = _by_name(peak, "peak")
    assert bucket.inputs["tags"] == {"key": base.outputs["keyArn"]}
    assert base.outputs["keyArn"].startswith("arn:aws:kms:")

"""The pack as the Pulumi CLI runs it: `policies/__main__.py` started from the pack folder serves the
analyzer gRPC protocol; the engine's requests get the verdicts sahab check gives, unknowns failing closed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
import yaml
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

PACK_DIR = Path(__file__).resolve().parents[2] / "policies"
BUCKET = "aws:s3/bucket:Bucket"
SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
PROJECT = "urn:pulumi:dev::proj::"


def struct(value: dict) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(value)
    return s


@pytest.fixture(scope="module")
def analyzer():
    env = dict(os.environ, PULUMI_CONFIG=json.dumps({"aws:region": "me-central-1"}))
    proc = subprocess.Popen([sys.executable, "__main__.py"], cwd=PACK_DIR, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        port = proc.stdout.readline().strip()
        assert port.isdigit(), proc.stderr.read() if proc.poll() is not None else port
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        yield analyzer_pb2_grpc.AnalyzerStub(channel)
        channel.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def provider(region: str, name: str = "default_7_51_1") -> analyzer_pb2.AnalyzerProviderResource:
    return analyzer_pb2.AnalyzerProviderResource(type="pulumi:providers:aws", name=name,
                                                 urn=f"{PROJECT}pulumi:providers:aws::{name}",
                                                 properties=struct({"region": region}))


def analyze(stub, type_: str, name: str, props: dict, prov) -> dict[str, analyzer_pb2.AnalyzeDiagnostic]:
    request = analyzer_pb2.AnalyzeRequest(type=type_, name=name, urn=f"{PROJECT}{type_}::{name}",
                                          properties=struct(props), provider=prov)
    return {d.policyName: d for d in stub.Analyze(request).diagnostics}


def test_pulumi_policy_yaml_runs_python_in_the_project_venv():
    doc = yaml.safe_load((PACK_DIR / "PulumiPolicy.yaml").read_text())
    assert doc["runtime"]["name"] == "python"
    assert (PACK_DIR / doc["runtime"]["options"]["virtualenv"]).resolve() == PACK_DIR.parent / ".venv"


def test_analyzer_info_lists_every_rule_with_metadata(analyzer):
    from sahab.policies.core import all_rules

    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty())
    assert info.name == "sahab-uae-residency"
    policies = {p.name: p for p in info.policies}
    assert set(policies) == {r.name for r in all_rules()}
    region = policies["aws-all-resource-region-allowed"]
    assert region.enforcementLevel == analyzer_pb2.MANDATORY
    assert region.framework.name.startswith("UAE PDPL")
    assert region.remediation_steps
    assert policies["aws-s3-bucket-versioning-enabled"].enforcementLevel == analyzer_pb2.ADVISORY


def analyze_stack(stub, type_: str, name: str, props: dict, prov) -> dict[str, analyzer_pb2.AnalyzeDiagnostic]:
    """Residency is a stack policy (it follows references between resources): one resource, as a whole stack."""
    resource = analyzer_pb2.AnalyzerResource(type=type_, name=name, urn=f"{PROJECT}{type_}::{name}",
                                             properties=struct(props), provider=prov)
    request = analyzer_pb2.AnalyzeStackRequest(resources=[resource])
    return {d.policyName: d for d in stub.AnalyzeStack(request).diagnostics}


def test_out_of_region_provider_is_a_mandatory_violation(analyzer):
    found = analyze_stack(analyzer, BUCKET, "remote", {}, provider("eu-central-1", "frankfurt"))
    assert found["aws-all-resource-region-allowed"].enforcementLevel == analyzer_pb2.MANDATORY
    assert "eu-central-1" in found["aws-all-resource-region-allowed"].message
    assert found["aws-all-resource-region-allowed"].urn.endswith("::remote")
    assert "aws-all-resource-region-allowed" not in analyze_stack(analyzer, BUCKET, "ok", {}, provider("me-central-1"))


def test_unknown_region_fails_closed_not_downgraded_to_advisory(analyzer):
    found = analyze_stack(analyzer, BUCKET, "b", {"region": UNKNOWN_STRING_VALUE}, provider("me-central-1"))
    diagnostic = found["aws-all-resource-region-allowed"]
    assert diagnostic.enforcementLevel == analyzer_pb2.MANDATORY
    assert "fails closed" in diagnostic.message


def test_stack_policy_correlates_separate_encryption_resource(analyzer):
    bucket = analyzer_pb2.AnalyzerResource(type=BUCKET, name="b", urn=f"{PROJECT}{BUCKET}::b",
                                           properties=struct({}), provider=provider("me-central-1"))
    sse = analyzer_pb2.AnalyzerResource(
        type=SSE, name="b-sse", urn=f"{PROJECT}{SSE}::b-sse", provider=provider("me-central-1"),
        properties=struct({"bucket": UNKNOWN_STRING_VALUE, "rules": [{"applyServerSideEncryptionByDefault": {
            "sseAlgorithm": "aws:kms", "kmsMasterKeyId": UNKNOWN_STRING_VALUE}}]}),
        propertyDependencies={"bucket": analyzer_pb2.AnalyzerPropertyDependencies(urns=[bucket.urn])})
    alone = analyzer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=[bucket])).diagnostics
    assert any(d.policyName == "aws-s3-bucket-sse-kms-cmk" and d.urn == bucket.urn for d in alone)
    paired = analyzer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=[bucket, sse])).diagnostics
    assert not any(d.policyName == "aws-s3-bucket-sse-kms-cmk" for d in paired)

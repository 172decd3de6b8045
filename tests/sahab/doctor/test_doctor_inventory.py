"""`sahab doctor`'s inventory area: each resource a stack declares in `sahab:existing` is asked of the live cloud
(AWS: moto in this process; Azure: a Resource Manager stand-in on loopback), and a declared place that is not
where the resource is fails, naming where it is."""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from sahab.doctor import FAIL, OK, SKIP, DoctorContext
from sahab.doctor import inventory as area

pytestmark = pytest.mark.moto


@pytest.fixture
def aws(monkeypatch, tmp_path):
    from moto import mock_aws

    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    with mock_aws():
        yield


def _context(entries: list[dict], endpoints: dict[str, str] | None = None, **config: str) -> DoctorContext:
    return DoctorContext(project_dir=Path("."), stack="dev", fleet=None,
                         config={"sahab:existing": json.dumps(entries), **config}, endpoints=endpoints or {})


def _by_name(found) -> dict[str, tuple[str, str, str]]:
    return {c.name: (c.status, c.detail, c.remedy) for c in found}


def test_aws_resources_are_found_where_the_stack_declares_them(aws):
    import boto3

    boto3.client("s3", region_name="me-central-1").create_bucket(
        Bucket="corp-artifacts", CreateBucketConfiguration={"LocationConstraint": "me-central-1"})
    boto3.client("s3", region_name="eu-west-1").create_bucket(
        Bucket="corp-logs", CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    key = boto3.client("kms", region_name="me-central-1").create_key()["KeyMetadata"]
    abroad = boto3.client("kms", region_name="eu-west-1").create_key()["KeyMetadata"]
    vpc = boto3.client("ec2", region_name="me-central-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]
    found = _by_name(area.checks(_context([
        {"type": "aws:s3/bucketV2:BucketV2", "id": "corp-artifacts", "region": "me-central-1"},
        {"type": "aws:s3/bucketV2:BucketV2", "id": "corp-logs", "region": "me-central-1"},
        {"type": "aws:kms/key:Key", "id": key["KeyId"], "region": "me-central-1"},
        {"type": "aws:kms/key:Key", "id": abroad["KeyId"], "region": "me-central-1"},
        {"type": "aws:kms/key:Key", "id": abroad["Arn"], "region": "me-central-1"},
        {"type": "aws:ec2/vpc:Vpc", "id": vpc["VpcId"], "region": "me-central-1"},
        {"type": "aws:secretsmanager/secret:Secret", "id": "never-created", "region": "me-central-1"},
        {"type": "aws:glue/catalogDatabase:CatalogDatabase", "id": "sales", "region": "me-central-1"},
    ])))
    assert found["aws:s3/bucketV2:BucketV2 corp-artifacts"][0] == OK
    status, detail, remedy = found["aws:s3/bucketV2:BucketV2 corp-logs"]
    assert status == FAIL and "eu-west-1" in detail and "eu-west-1" in remedy
    assert found[f"aws:kms/key:Key {key['KeyId']}"][0] == OK
    status, detail, _ = found[f"aws:kms/key:Key {abroad['KeyId']}"]
    assert status == FAIL and "not found in me-central-1" in detail
    status, detail, _ = found[f"aws:kms/key:Key {abroad['Arn']}"]
    assert status == FAIL and "ARN is in eu-west-1" in detail
    assert found[f"aws:ec2/vpc:Vpc {vpc['VpcId']}"][0] == OK
    assert found["aws:secretsmanager/secret:Secret never-created"][0] == FAIL
    assert found["aws:glue/catalogDatabase:CatalogDatabase sales"][0] == SKIP


class _ResourceManager(BaseHTTPRequestHandler):
    """Answers Resource Groups - Get and Resources - List as Azure Resource Manager does, for one subscription."""

    groups = {"shared-network": "UAE North"}
    resources = [{"id": "/subscriptions/sub/resourceGroups/data/providers/Microsoft.Storage/storageAccounts/corplake",
                  "name": "corplake", "type": "Microsoft.Storage/storageAccounts", "location": "westeurope"}]

    def do_GET(self):
        from urllib.parse import parse_qs, urlparse

        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if parts[2:3] == ["resourcegroups"] and parts[3] in self.groups:
            self._answer(200, {"name": parts[3], "location": self.groups[parts[3]]})
        elif parts[2:3] == ["resources"]:
            wanted = parse_qs(url.query)["$filter"][0].split("'")[1]
            self._answer(200, {"value": [r for r in self.resources if r["name"] == wanted]})
        else:
            self._answer(404, {"error": {"code": "ResourceGroupNotFound"}})

    def _answer(self, status: int, body: dict):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args):
        pass


@pytest.fixture
def resource_manager():
    server = HTTPServer(("127.0.0.1", 0), _ResourceManager)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_azure_resources_are_found_where_the_stack_declares_them(resource_manager):
    found = _by_name(area.checks(_context([
        {"type": "azure-native:resources:ResourceGroup", "id": "shared-network", "location": "uaenorth"},
        {"type": "azure-native:storage:StorageAccount", "id": "corplake", "location": "uaenorth"},
        {"type": "azure-native:resources:ResourceGroup", "id": "gone", "location": "uaenorth"},
    ], {"azure": resource_manager}, **{"azure-native:subscriptionId": "sub"})))
    assert found["azure-native:resources:ResourceGroup shared-network"][0] == OK  # "UAE North" is uaenorth
    status, detail, _ = found["azure-native:storage:StorageAccount corplake"]
    assert status == FAIL and "westeurope" in detail
    assert found["azure-native:resources:ResourceGroup gone"][0] == FAIL


def test_a_declaration_in_the_wrong_cloud_terms_fails_with_the_fix():
    found = _by_name(area.checks(_context([
        {"type": "azure-native:resources:ResourceGroup", "id": "rg", "region": "me-central-1"},
    ])))
    status, _, remedy = found["azure-native:resources:ResourceGroup rg"]
    assert status == FAIL and "location" in remedy

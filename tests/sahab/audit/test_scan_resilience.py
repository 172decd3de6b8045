"""The scanner at scale and under failure: pagination, throttling, access denied, bad credentials."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.stub import Stubber
from moto.core.authorization import enable_iam_authentication

from sahab.audit import permissions
from sahab.audit.clients import ClientFactory
from sahab.audit.evaluate import evaluate
from sahab.audit.scanner import ScanOptions, scan
from sahab.audit.services import s3 as s3_scanner
from sahab.audit.tasks import ScanContext
from sahab.cli import main
from tests.sahab.audit.audit_seed import ME, bucket, cmk

pytestmark = pytest.mark.moto
EU = "eu-west-1"
ACCOUNT = "123456789012"
POLICY = json.loads(Path(permissions.AUDITOR_POLICY).read_text())


def seed_fleet(buckets: int, volumes_per_region: dict[str, int]) -> None:
    """Many plain buckets and volumes, made through moto's backends: its API takes ~40 ms per CreateVolume."""
    from moto.ec2.models import ec2_backends
    from moto.s3.models import s3_backends

    for i in range(buckets):
        s3_backends[ACCOUNT]["aws"].create_bucket(f"fleet-{i:04d}", ME)
    for region, count in volumes_per_region.items():
        for _ in range(count):
            ec2_backends[ACCOUNT][region].create_volume(size=1, zone_name=f"{region}a")


def test_hundreds_of_buckets_and_volumes_with_constant_calls_per_resource(aws):
    seed_fleet(200, {ME: 100, EU: 100})
    eks = boto3.client("eks", region_name=ME)
    for i in range(5):
        eks.create_cluster(name=f"c{i}", roleArn="arn:aws:iam::123456789012:role/eks",
                           resourcesVpcConfig={"subnetIds": ["subnet-1"]})

    result = scan(ScanOptions(regions=[ME, EU], page_sizes={"ListClusters": 2}))

    types = [r.type for r in result.resources]
    assert types.count("aws:s3/bucket:Bucket") == 200
    assert types.count("aws:ebs/volume:Volume") == 200
    assert types.count("aws:eks/cluster:Cluster") == 5
    assert result.errors == []
    calls = result.api_calls
    # Listings happen once per region (per page), never per resource.
    assert calls["s3.ListBuckets"] == 1
    assert calls["ec2.DescribeVolumes"] == 2
    assert calls["eks.ListClusters"] == 3 + 1  # five clusters in pages of two in ME, one empty page in EU
    # Per-bucket reads are S3's design, and exactly one of each per bucket.
    for op in ("GetBucketLocation", "GetBucketEncryption", "GetPublicAccessBlock", "GetBucketPolicy",
               "GetBucketReplication", "GetBucketVersioning"):
        assert calls[f"s3.{op}"] == 200, op
    assert calls["eks.DescribeCluster"] == 5
    findings = evaluate(result.resources, [ME], []).findings
    assert sum(f.rule.id == "SAHAB-AWS-012" for f in findings) == 200
    assert sum(f.rule.id == "SAHAB-AWS-001" for f in findings) == 100


@pytest.mark.parametrize(("restricted", "expected"), [
    (True, [("a", ME), ("c", ME)]),  # --scan-regions me-central-1: bucket b in eu-west-1 is out of scope
    (False, [("a", ME), ("b", EU), ("c", ME)]),  # every region: ListBuckets is global, so is the audit of it
])
def test_list_buckets_follows_continuation_tokens(restricted, expected):
    """moto answers ListBuckets in one page; S3 pages beyond 10,000 buckets. Follow its tokens."""
    clients = ClientFactory()
    client = clients.client("s3", "us-east-1")
    ctx = ScanContext(ACCOUNT, "aws", frozenset({ME}), frozenset({ME}), "us-east-1", restricted=restricted)
    with Stubber(client) as stub:
        stub.add_response("list_buckets", {"Buckets": [{"Name": "a", "BucketRegion": ME},
                                                       {"Name": "b", "BucketRegion": EU}],
                                           "ContinuationToken": "page-2"}, {})
        stub.add_response("list_buckets", {"Buckets": [{"Name": "c", "BucketRegion": ME}]},
                          {"ContinuationToken": "page-2"})
        outcome = s3_scanner.tasks(ctx)[0].run(clients)
        stub.assert_no_pending_responses()
    # Each bucket gets its own task, run against its own region.
    assert [(t.resource, t.region) for t in outcome.followups] == expected


def _throttle_kms(request, **_):
    """Every KMS request answered as AWS does when its rate limit is hit."""
    body = json.dumps({"__type": "ThrottlingException", "message": "Rate exceeded"}).encode()
    return AWSResponse(request.url, 400, {"Content-Type": "application/x-amz-json-1.1"}, _Raw(body))


class _Raw:
    def __init__(self, body: bytes):
        self.body = body

    def stream(self, **_):
        yield self.body


def test_throttling_on_one_service_is_retried_reported_and_the_rest_scanned(aws):
    bucket("plain-bucket", ME, key=None, sse="AES256")
    cmk(ME)
    clients = ClientFactory(max_attempts=2)
    sends = []
    clients.session.events.register("before-send.kms", lambda request, **kw: sends.append(request) or
                                    _throttle_kms(request))
    result = scan(ScanOptions(regions=[ME, EU]), clients)

    kms_errors = [e for e in result.errors if e.service == "kms"]
    assert sorted(e.region for e in kms_errors) == [EU, ME]
    assert {(e.operation, e.code) for e in kms_errors} == {("ListAliases", "ThrottlingException")}
    assert len(sends) == 2 * result.api_calls["kms.ListAliases"]  # each call tried twice (adaptive retries)
    assert [e for e in result.errors if e.service != "kms"] == []
    findings = {(f.rule.id, f.resource) for f in evaluate(result.resources, [ME], []).findings}
    assert ("SAHAB-AWS-010", "arn:aws:s3:::plain-bucket") in findings


def _auditor(policy: dict, monkeypatch) -> None:
    """An IAM user holding `policy`, whose keys the scan then uses."""
    iam = boto3.client("iam", region_name="us-east-1")
    iam.create_user(UserName="auditor")
    arn = iam.create_policy(PolicyName="sahab-auditor", PolicyDocument=json.dumps(policy))["Policy"]["Arn"]
    iam.attach_user_policy(UserName="auditor", PolicyArn=arn)
    key = iam.create_access_key(UserName="auditor")["AccessKey"]
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key["AccessKeyId"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", key["SecretAccessKey"])


# moto 5.2's IAM simulation is faithful for EC2 and KMS only: it checks S3 calls against the wrong action
# names (GetBucketEncryption as s3:ListBucket) and rejects EKS request signatures. S3's and EKS's actions are
# checked against the table below (AWS's Service Authorization Reference), not against moto.
IAM_CHECKED = ("ec2", "kms")


def test_access_denied_on_one_service_names_the_permission_and_keeps_the_rest(aws, monkeypatch):
    boto3.client("ec2", region_name=EU).create_volume(AvailabilityZone=f"{EU}a", Size=1)
    without_kms = {"Version": "2012-10-17",
                   "Statement": [s for s in POLICY["Statement"] if not s["Sid"].startswith("Kms")]}
    _auditor(without_kms, monkeypatch)
    with enable_iam_authentication():
        result = scan(ScanOptions(regions=[ME, EU], services=IAM_CHECKED))
    assert sorted((e.service, e.region) for e in result.errors) == [("kms", EU), ("kms", ME)]
    assert all(e.code.startswith("AccessDenied") for e in result.errors)
    assert all("needs kms:ListAliases" in e.line() for e in result.errors)
    assert [r.region for r in result.resources if r.type == "aws:ebs/volume:Volume"] == [EU]


def test_the_auditor_policy_is_enough_for_a_full_scan(aws, monkeypatch):
    key = cmk(ME)
    ec2 = boto3.client("ec2", region_name=ME)
    ec2.create_snapshot(VolumeId=ec2.create_volume(AvailabilityZone=f"{ME}a", Size=1, Encrypted=True,
                                                   KmsKeyId=key)["VolumeId"])
    _auditor(POLICY, monkeypatch)
    with enable_iam_authentication():
        result = scan(ScanOptions(regions=[ME], services=IAM_CHECKED))
    assert result.errors == []
    assert {r.type for r in result.resources} == {"aws:kms/key:Key", "aws:ebs/volume:Volume",
                                                  "aws:ebs/snapshot:Snapshot",
                                                  "aws:ebs/encryptionByDefault:EncryptionByDefault"}


def test_the_auditor_policy_grants_exactly_the_calls_the_scanner_makes(aws):
    key = cmk(ME)
    bucket("configured", ME, key=key)
    result = scan(ScanOptions(regions=[ME]))
    made = {tuple(call.split(".")) for call in result.api_calls}
    assert made - set(permissions.IAM_ACTIONS) <= permissions.UNPERMISSIONED
    assert permissions.policy_actions() == set(permissions.IAM_ACTIONS.values())
    assert all(not a.endswith("*") and a.split(":")[1][:3] in ("Get", "Lis", "Des") for a in
               permissions.policy_actions())  # read-only, no wildcards


def test_missing_credentials_exit_2_with_one_line(aws, capsys, monkeypatch):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    assert main(["audit", "aws", "--scan-regions", ME]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("error: no AWS credentials found: set AWS_ACCESS_KEY_ID")


def test_rejected_credentials_exit_2_naming_the_call(aws, capsys):
    with enable_iam_authentication():
        assert main(["audit", "aws"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: AWS rejected the credentials on sts:GetCallerIdentity (InvalidClientTokenId)")
    assert err.count("\n") == 1


def test_missing_region_permission_exit_2_naming_it(aws, capsys, monkeypatch):
    _auditor({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:ListAllMyBuckets", "Resource": "*"}]}, monkeypatch)
    with enable_iam_authentication():
        assert main(["audit", "aws"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot list the account's regions") and "ec2:DescribeRegions" in err


@pytest.mark.parametrize(("args", "message"), [
    (["--scan-regions", "mars-1"], "--scan-regions: 'mars-1' is not an AWS region name"),
    (["--endpoint-url", "ftp://x"], "--endpoint-url: 'ftp://x' is not allowed; allowed: an http(s) URL"),
    (["--profile", "nobody"], "AWS profile 'nobody' not found"),
    (["--scan-regions", "ap-east-1", "--format", "json"], None),
])
def test_bad_arguments_exit_2(aws, capsys, args, message):
    code = main(["audit", "aws", *args])
    err = capsys.readouterr().err
    if message is None:  # a well-formed region the account has not enabled is a usage error too
        assert code == 0 or "not enabled" in err
        return
    assert code == 2
    assert err.startswith("error: ") and message in err

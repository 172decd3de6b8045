"""Live API shapes -> the pulumi-aws views the rules read, and the rules' verdicts on them (no AWS needed)."""

from __future__ import annotations

import pytest

from sahab.audit import adapters
from sahab.audit.evaluate import audited_rules, evaluate
from sahab.audit.services.s3 import region_of_location
from sahab.audit.tasks import _readable

KEY = "arn:aws:kms:me-central-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
ME = "me-central-1"
PAB_ON = {"BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": True, "RestrictPublicBuckets": True}
TLS_POLICY = ('{"Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": "*", '
              '"Condition": {"Bool": {"aws:SecureTransport": "false"}}}]}')


def sse(algorithm: str, key: str | None = None) -> dict:
    default = {"SSEAlgorithm": algorithm} | ({"KMSMasterKeyID": key} if key else {})
    return {"Rules": [{"ApplyServerSideEncryptionByDefault": default, "BucketKeyEnabled": True}]}


def bucket(name="data", region=ME, **overrides):
    config = {"encryption": sse("aws:kms", KEY), "public_access_block": PAB_ON, "policy": TLS_POLICY,
              "replication": None, "versioning": {"Status": "Enabled"}} | overrides
    return adapters.s3_bucket(name, region, **config)


def findings(resources, allowed=(ME,)):
    return {(f.rule.id, f.resource) for f in evaluate(resources, allowed, []).findings}


def test_bucket_views_use_the_providers_camel_case_shapes():
    views = {v.type: v for v in bucket()}
    assert views[adapters.BUCKET].props == {"bucket": "data", "region": ME, "arn": "arn:aws:s3:::data"}
    assert views[adapters.BUCKET_SSE].props["rules"] == [{
        "applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": KEY},
        "bucketKeyEnabled": True}]
    assert views[adapters.BUCKET_PAB].props["restrictPublicBuckets"] is True
    assert views[adapters.BUCKET_VERSIONING].props["versioningConfiguration"] == {"status": "Enabled"}
    # Configurations are reported against their bucket.
    assert {v.subject for v in views.values()} == {"arn:aws:s3:::data"}


def test_a_fully_configured_bucket_in_the_allowed_region_passes_every_rule():
    assert findings(bucket()) == set()


@pytest.mark.parametrize(("overrides", "rule"), [
    ({"encryption": sse("AES256")}, "SAHAB-AWS-010"),
    ({"encryption": sse("aws:kms")}, "SAHAB-AWS-010"),  # the AWS-managed aws/s3 key
    ({"encryption": sse("aws:kms", "alias/aws/s3")}, "SAHAB-AWS-010"),
    ({"encryption": None}, "SAHAB-AWS-010"),
    ({"public_access_block": None}, "SAHAB-AWS-020"),
    ({"public_access_block": PAB_ON | {"BlockPublicPolicy": False}}, "SAHAB-AWS-020"),
    ({"policy": None}, "SAHAB-AWS-011"),
    ({"versioning": {}}, "SAHAB-AWS-021"),  # never enabled: the API returns no Status
])
def test_each_broken_bucket_setting_is_one_finding_on_the_bucket(overrides, rule):
    assert findings(bucket(**overrides)) == {(rule, "arn:aws:s3:::data")}


def test_a_bucket_elsewhere_is_one_residency_finding_not_one_per_configuration():
    assert findings(bucket(region="eu-west-1")) == {("SAHAB-AWS-001", "arn:aws:s3:::data")}


def test_replication_to_a_bucket_outside_the_allowed_regions():
    replication = {"Role": "arn:aws:iam::123456789012:role/r", "Rules": [
        {"ID": "out", "Status": "Enabled", "Priority": 1, "Destination": {"Bucket": "arn:aws:s3:::copy"}}]}
    source = bucket(replication=replication)
    rules = next(v for v in source if v.type == adapters.BUCKET_REPLICATION).props["rules"]
    assert rules == [{"id": "out", "status": "Enabled", "priority": 1, "destination": {"bucket": "arn:aws:s3:::copy"}}]
    in_region = findings(source + bucket("copy"))
    assert in_region == set()
    elsewhere = findings(source + bucket("copy", region="eu-west-1"))
    assert elsewhere == {("SAHAB-AWS-004", "arn:aws:s3:::data"), ("SAHAB-AWS-001", "arn:aws:s3:::copy")}
    # A destination in another account cannot be shown to be in the UAE.
    assert findings(source) == {("SAHAB-AWS-004", "arn:aws:s3:::data")}


def test_volume_snapshot_and_encryption_by_default():
    volume = adapters.ebs_volume({"VolumeId": "vol-1", "AvailabilityZone": "me-central-1a", "Encrypted": True,
                                  "KmsKeyId": KEY, "Size": 100, "VolumeType": "gp3"}, ME, "123456789012")
    assert volume.props == {"availabilityZone": "me-central-1a", "encrypted": True, "kmsKeyId": KEY, "size": 100,
                            "type": "gp3", "region": ME, "arn": "arn:aws:ec2:me-central-1:123456789012:volume/vol-1"}
    plain = adapters.ebs_volume({"VolumeId": "vol-2", "Encrypted": False}, ME, "123456789012")
    snapshot = adapters.ebs_snapshot({"SnapshotId": "snap-1", "VolumeId": "vol-2", "Encrypted": False}, ME)
    off = adapters.ebs_encryption_by_default(False, ME, "123456789012")
    off_elsewhere = adapters.ebs_encryption_by_default(False, "eu-west-1", "123456789012")
    assert findings([volume, plain, snapshot, off]) == {
        ("SAHAB-AWS-012", plain.id), ("SAHAB-AWS-090", snapshot.id), ("SAHAB-AWS-091", off.id)}
    # The account setting is only required where the fleet may run.
    assert ("SAHAB-AWS-091", off_elsewhere.id) not in findings([off_elsewhere])


def test_kms_keys():
    def key(rotation, multi_region=False, spec="SYMMETRIC_DEFAULT"):
        return adapters.kms_key({"KeyId": "k", "Arn": KEY, "MultiRegion": multi_region, "KeySpec": spec,
                                 "KeyState": "Enabled", "KeyUsage": "ENCRYPT_DECRYPT"}, rotation, ["alias/data"], ME)

    good = key(True)
    assert good.name == "data" and good.props["enableKeyRotation"] is True and good.props["multiRegion"] is False
    assert "alias/data" in good.identities
    assert findings([good]) == set()
    assert findings([key(False)]) == {("SAHAB-AWS-014", KEY)}
    assert findings([key(True, multi_region=True)]) == {("SAHAB-AWS-003", KEY)}
    assert findings([key(None, spec="RSA_2048")]) == set()  # AWS cannot rotate asymmetric keys


def test_eks_cluster_encryption_config_is_one_object():
    api = {"name": "fleet", "arn": "arn:aws:eks:me-central-1:123456789012:cluster/fleet", "version": "1.31",
           "encryptionConfig": [{"resources": ["secrets"], "provider": {"keyArn": KEY}}],
           "resourcesVpcConfig": {"endpointPublicAccess": False, "endpointPrivateAccess": True},
           "logging": {"clusterLogging": [{"types": ["api", "audit"], "enabled": True},
                                          {"types": ["scheduler"], "enabled": False}]}}
    cluster = adapters.eks_cluster(api, ME)
    assert cluster.props["encryptionConfig"] == {"resources": ["secrets"], "provider": {"keyArn": KEY}}
    assert cluster.props["enabledClusterLogTypes"] == ["api", "audit"]
    assert findings([cluster]) == set()
    plain = adapters.eks_cluster({**api, "encryptionConfig": None}, ME)
    assert findings([plain]) == {("SAHAB-AWS-015", cluster.id)}


def test_rules_audited_are_the_packs_rules_for_the_audited_types():
    ids = {r.id for r in audited_rules()}
    assert {"SAHAB-AWS-001", "SAHAB-AWS-003", "SAHAB-AWS-004", "SAHAB-AWS-010", "SAHAB-AWS-011", "SAHAB-AWS-012",
            "SAHAB-AWS-014", "SAHAB-AWS-015", "SAHAB-AWS-020", "SAHAB-AWS-090", "SAHAB-AWS-091"} <= ids
    assert not [i for i in ids if not i.startswith("SAHAB-AWS-")]  # no Azure, Kubernetes or on-prem rules
    assert "SAHAB-AWS-005" not in ids  # backup plans are not scanned, so their rule is not claimed
    assert "SAHAB-AWS-024" not in ids  # a key's deletion window is not visible on a live key


def test_location_constraints_and_unparsed_error_bodies():
    assert region_of_location(None) == "us-east-1"
    assert region_of_location("EU") == "eu-west-1"
    assert region_of_location(ME) == ME
    body = "<ErrorResponse><Error><Code>AccessDenied</Code><Message>not authorized</Message></Error></ErrorResponse>"
    assert _readable("403", body) == ("AccessDenied", "not authorized")
    assert _readable("ThrottlingException", "Rate exceeded") == ("ThrottlingException", "Rate exceeded")

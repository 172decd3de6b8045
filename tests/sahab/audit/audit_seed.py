"""An AWS account in moto with compliant and non-compliant resources, and the findings the audit must report.

me-central-1 (allowed) holds one compliant example of everything and one resource per broken rule; eu-west-1
and us-east-1 (not allowed) hold resources that are findings by their region alone."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import boto3

ME, EU, US = "me-central-1", "eu-west-1", "us-east-1"
ROLE = "arn:aws:iam::123456789012:role/sahab"


@dataclass
class Seeded:
    ids: dict[str, str] = field(default_factory=dict)
    expected: set[tuple[str, str]] = field(default_factory=set)  # (rule id, resource ARN or id)

    def expect(self, rule: str, name: str) -> None:
        self.expected.add((rule, self.ids.get(name, name)))


def tls_only_policy(bucket: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"],
        "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})


def cmk(region: str, *, rotate: bool = True, multi_region: bool = False) -> str:
    kms = boto3.client("kms", region_name=region)
    arn = kms.create_key(Description="sahab data", MultiRegion=multi_region)["KeyMetadata"]["Arn"]
    if rotate:
        kms.enable_key_rotation(KeyId=arn)
    return arn


def bucket(name: str, region: str, *, key: str | None, sse: str = "aws:kms", public_access_block: bool = True,
           tls_policy: bool = True, versioning: bool = True) -> str:
    s3 = boto3.client("s3", region_name=region)
    if region == US:
        s3.create_bucket(Bucket=name)
    else:
        s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": region})
    if sse:
        default = {"SSEAlgorithm": sse} | ({"KMSMasterKeyID": key} if key else {})
        s3.put_bucket_encryption(Bucket=name, ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": default, "BucketKeyEnabled": True}]})
    if public_access_block:
        s3.put_public_access_block(Bucket=name, PublicAccessBlockConfiguration={
            "BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": True,
            "RestrictPublicBuckets": True})
    if tls_policy:
        s3.put_bucket_policy(Bucket=name, Policy=tls_only_policy(name))
    if versioning:
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    return f"arn:aws:s3:::{name}"


def volume(region: str, *, key: str | None) -> str:
    ec2 = boto3.client("ec2", region_name=region)
    args = {"Encrypted": True, "KmsKeyId": key} if key else {"Encrypted": False}
    return ec2.create_volume(AvailabilityZone=f"{region}a", Size=10, **args)["VolumeId"]


def volume_arn(region: str, volume_id: str) -> str:
    return f"arn:aws:ec2:{region}:123456789012:volume/{volume_id}"


def snapshot_arn(region: str, snapshot_id: str) -> str:
    return f"arn:aws:ec2:{region}::snapshot/{snapshot_id}"


def cluster(name: str, region: str, *, key: str | None) -> str:
    eks = boto3.client("eks", region_name=region)
    args = {"encryptionConfig": [{"resources": ["secrets"], "provider": {"keyArn": key}}]} if key else {}
    return eks.create_cluster(
        name=name, roleArn=ROLE,
        resourcesVpcConfig={"subnetIds": ["subnet-0a1b2c3d"], "endpointPublicAccess": False,
                            "endpointPrivateAccess": True},
        logging={"clusterLogging": [{"types": ["api", "audit", "authenticator"], "enabled": True}]},
        **args)["cluster"]["arn"]


def seed_account() -> Seeded:
    s = Seeded()
    me_key = cmk(ME)
    s.ids["me-key"] = me_key
    s.ids["me-key-no-rotation"] = cmk(ME, rotate=False)
    s.ids["me-key-multi-region"] = cmk(ME, multi_region=True)
    s.expect("SAHAB-AWS-014", "me-key-no-rotation")
    s.expect("SAHAB-AWS-003", "me-key-multi-region")

    s.ids["sahab-data-ok"] = bucket("sahab-data-ok", ME, key=me_key)
    s.ids["sahab-sse-s3"] = bucket("sahab-sse-s3", ME, key=None, sse="AES256")
    s.ids["sahab-aws-managed"] = bucket("sahab-aws-managed", ME, key=None)
    s.ids["sahab-no-pab"] = bucket("sahab-no-pab", ME, key=me_key, public_access_block=False)
    s.ids["sahab-no-tls-policy"] = bucket("sahab-no-tls-policy", ME, key=me_key, tls_policy=False)
    s.expect("SAHAB-AWS-010", "sahab-sse-s3")
    s.expect("SAHAB-AWS-010", "sahab-aws-managed")
    s.expect("SAHAB-AWS-020", "sahab-no-pab")
    s.expect("SAHAB-AWS-011", "sahab-no-tls-policy")

    eu_key = cmk(EU)
    s.ids["eu-key"] = eu_key
    s.expect("SAHAB-AWS-001", "eu-key")
    s.ids["sahab-eu-replica"] = bucket("sahab-eu-replica", EU, key=eu_key)
    s.expect("SAHAB-AWS-001", "sahab-eu-replica")
    s.ids["sahab-replicates-out"] = bucket("sahab-replicates-out", ME, key=me_key)
    boto3.client("s3", region_name=ME).put_bucket_replication(
        Bucket="sahab-replicates-out",
        ReplicationConfiguration={"Role": ROLE, "Rules": [{
            "ID": "to-eu", "Priority": 1, "Status": "Enabled", "Filter": {"Prefix": ""},
            "DeleteMarkerReplication": {"Status": "Disabled"},
            "Destination": {"Bucket": "arn:aws:s3:::sahab-eu-replica"}}]})
    s.expect("SAHAB-AWS-004", "sahab-replicates-out")

    us = bucket("sahab-us-legacy", US, key=None, sse="", public_access_block=False, tls_policy=False,
                versioning=False)
    s.ids["sahab-us-legacy"] = us
    for rule in ("SAHAB-AWS-001", "SAHAB-AWS-010", "SAHAB-AWS-011", "SAHAB-AWS-020", "SAHAB-AWS-021"):
        s.expect(rule, "sahab-us-legacy")

    ec2 = boto3.client("ec2", region_name=ME)
    good_volume = volume(ME, key=me_key)
    plain_volume = volume(ME, key=None)
    s.ids["me-volume-ok"] = volume_arn(ME, good_volume)
    s.ids["me-volume-plain"] = volume_arn(ME, plain_volume)
    s.expect("SAHAB-AWS-012", "me-volume-plain")
    good_snap = ec2.create_snapshot(VolumeId=good_volume)["SnapshotId"]
    plain_snap = ec2.create_snapshot(VolumeId=plain_volume)["SnapshotId"]
    s.ids["me-snapshot-ok"] = snapshot_arn(ME, good_snap)
    s.ids["me-snapshot-plain"] = snapshot_arn(ME, plain_snap)
    s.expect("SAHAB-AWS-090", "me-snapshot-plain")
    ec2.enable_ebs_encryption_by_default()

    eu_volume = volume(EU, key=eu_key)
    s.ids["eu-volume"] = volume_arn(EU, eu_volume)
    s.expect("SAHAB-AWS-001", "eu-volume")

    s.ids["me-cluster-ok"] = cluster("fleet-ok", ME, key=me_key)
    s.ids["me-cluster-plain"] = cluster("fleet-plain", ME, key=None)
    s.expect("SAHAB-AWS-015", "me-cluster-plain")
    return s

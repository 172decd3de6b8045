"""The IAM action behind every API call the auditor makes.

One table drives both the `needs <action>` hint on an access-denied scan error and the check that
`policies/iam/auditor-policy.json` grants exactly these actions and nothing more.
"""

from __future__ import annotations

import json
from pathlib import Path

from sahab import policies

# (boto3 service name, API operation) -> IAM action. S3 names differ from its operations, hence a table.
IAM_ACTIONS: dict[tuple[str, str], str] = {
    ("ec2", "DescribeRegions"): "ec2:DescribeRegions",
    ("ec2", "DescribeVolumes"): "ec2:DescribeVolumes",
    ("ec2", "DescribeSnapshots"): "ec2:DescribeSnapshots",
    ("ec2", "GetEbsEncryptionByDefault"): "ec2:GetEbsEncryptionByDefault",
    ("s3", "ListBuckets"): "s3:ListAllMyBuckets",
    ("s3", "GetBucketLocation"): "s3:GetBucketLocation",
    ("s3", "GetBucketEncryption"): "s3:GetEncryptionConfiguration",
    ("s3", "GetPublicAccessBlock"): "s3:GetBucketPublicAccessBlock",
    ("s3", "GetBucketPolicy"): "s3:GetBucketPolicy",
    ("s3", "GetBucketReplication"): "s3:GetReplicationConfiguration",
    ("s3", "GetBucketVersioning"): "s3:GetBucketVersioning",
    ("kms", "ListKeys"): "kms:ListKeys",
    ("kms", "ListAliases"): "kms:ListAliases",
    ("kms", "DescribeKey"): "kms:DescribeKey",
    ("kms", "GetKeyRotationStatus"): "kms:GetKeyRotationStatus",
    ("eks", "ListClusters"): "eks:ListClusters",
    ("eks", "DescribeCluster"): "eks:DescribeCluster",
}

# sts:GetCallerIdentity needs no permission: AWS answers it for any valid credentials.
UNPERMISSIONED = {("sts", "GetCallerIdentity")}

AUDITOR_POLICY = Path(policies.__file__).resolve().parent / "iam" / "auditor-policy.json"


def iam_action(service: str, operation: str) -> str | None:
    return IAM_ACTIONS.get((service, operation))


def policy_actions(path: Path = AUDITOR_POLICY) -> set[str]:
    """Every action the auditor policy document allows."""
    document = json.loads(path.read_text())
    actions: set[str] = set()
    for statement in document["Statement"]:
        if statement["Effect"] != "Allow":
            continue
        listed = statement["Action"]
        actions.update([listed] if isinstance(listed, str) else listed)
    return actions

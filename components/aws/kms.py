"""Customer-managed KMS keys: single-Region, rotated, with a key policy that names who may use them.

`key_policy` is pure (tested without Pulumi); `customer_key` creates the key under the caller's parent and
provider. Every key Sahab creates goes through here, so rotation and single-Region hold for all of them.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws
from sahab.components.fleet_config import KeyPolicy

# Actions a service needs to encrypt with a key it does not own.
USE_ACTIONS = ["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"]


def root_statement(account_id: str) -> dict[str, Any]:
    """Lets the account's IAM policies grant use of the key (AWS's default, stated explicitly)."""
    return {"Sid": "AccountAdministers", "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{account_id}:root"}, "Action": "kms:*", "Resource": "*"}


def autoscaling_statements(account_id: str) -> list[dict[str, Any]]:
    """EC2 Auto Scaling launches node volumes encrypted with the key through its service-linked role, which
    has no IAM policy we could edit: the key policy must name it."""
    role = f"arn:aws:iam::{account_id}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
    return [
        {"Sid": "AutoScalingUsesKey", "Effect": "Allow", "Principal": {"AWS": role}, "Action": USE_ACTIONS,
         "Resource": "*"},
        {"Sid": "AutoScalingGrantsForVolumes", "Effect": "Allow", "Principal": {"AWS": role},
         "Action": "kms:CreateGrant", "Resource": "*", "Condition": {"Bool": {"kms:GrantIsForAWSResource": "true"}}},
    ]


def logs_statement(account_id: str, region: str, log_group: str) -> dict[str, Any]:
    """CloudWatch Logs encrypts one log group with the key, and nothing else."""
    return {"Sid": "LogsEncryptControlPlaneLogs", "Effect": "Allow",
            "Principal": {"Service": f"logs.{region}.amazonaws.com"}, "Action": USE_ACTIONS, "Resource": "*",
            "Condition": {"ArnEquals": {"kms:EncryptionContext:aws:logs:arn":
                                        f"arn:aws:logs:{region}:{account_id}:log-group:{log_group}"}}}


def key_policy(statements: list[dict[str, Any]]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


def customer_key(name: str, *, description: str, keys: KeyPolicy, policy: pulumi.Input[str] | None,
                 tags: dict[str, str], opts: pulumi.ResourceOptions, region: str | None = None) -> aws.kms.Key:
    """A symmetric key that rotates every `keys.rotation_period_days` and lives in one Region only
    (`multi_region` is left unset: AWS creates single-Region keys unless asked). `region` overrides the
    provider's Region for this key only (replicas in another allowed Region)."""
    return aws.kms.Key(
        name,
        description=description,
        enable_key_rotation=True,
        rotation_period_in_days=keys.rotation_period_days,
        deletion_window_in_days=keys.deletion_window_days,
        key_usage="ENCRYPT_DECRYPT",
        customer_master_key_spec="SYMMETRIC_DEFAULT",
        policy=policy,
        region=region,
        tags=tags,
        opts=opts,
    )

"""CheckpointAccess: a team's training pods on one EKS cluster reach the checkpoint bucket, and nothing else.

IRSA: a ServiceAccount in the team's namespace, annotated with an IAM role only that account of this cluster
may assume. The role may list the bucket under the team's prefix, read, write and delete objects there
(torch.distributed.checkpoint writes shards, then the marker that makes a checkpoint complete), and use the
bucket's KMS key for those objects only through S3. The trainer reads the credentials from the standard
environment the EKS pod identity webhook injects (AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE).

The caller passes both providers (`providers={"aws": ..., "kubernetes": ...}`).
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from pydantic import Field
from sahab.components.kubernetes.checkpoint_key import checkpoint_key
from sahab.components.kubernetes.common import MANAGED_BY, Args


class CheckpointAccessArgs(Args):
    namespace: str
    """The team namespace (also the object prefix). Required."""
    service_account: str
    """The ServiceAccount the training pods run as. Required."""
    region: str
    """The bucket's Region (for the KMS condition). Required."""
    bucket_name: Any
    """The checkpoint bucket (Input[str]). Required."""
    kms_key_arn: Any
    """The bucket's KMS key (Input[str]). Required."""
    oidc_provider_arn: Any
    """The cluster's IAM OIDC provider (Input[str]). Required."""
    oidc_issuer: Any
    """The cluster's OIDC issuer URL (Input[str]). Required."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on the role. Default: none."""


def trust_policy(provider_arn: str, issuer: str, namespace: str, service_account: str) -> str:
    host = issuer.removeprefix("https://")
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": provider_arn}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {f"{host}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                                       f"{host}:aud": "sts.amazonaws.com"}}}]})


def access_policy(bucket: str, key_arn: str, prefix: str, region: str) -> str:
    """The team's prefix of one bucket, and its key only as S3 uses it for that bucket."""
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "ListOwnPrefix", "Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": f"arn:aws:s3:::{bucket}",
         "Condition": {"StringLike": {"s3:prefix": [f"{prefix}/*", prefix]}}},
        {"Sid": "ReadWriteOwnPrefix", "Effect": "Allow",
         "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
         "Resource": f"arn:aws:s3:::{bucket}/{prefix}/*"},
        {"Sid": "UseBucketKey", "Effect": "Allow", "Action": ["kms:Decrypt", "kms:GenerateDataKey"],
         "Resource": key_arn, "Condition": {"StringEquals": {"kms:ViaService": f"s3.{region}.amazonaws.com"}}},
    ]})


class CheckpointAccess(pulumi.ComponentResource):
    """IRSA access from one team's pods on one cluster to the checkpoint bucket."""

    def __init__(self, name: str, args: CheckpointAccessArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:aws:CheckpointAccess", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(
            f"{name}-role", description=f"checkpoints of {args.namespace}/{args.service_account}",
            assume_role_policy=pulumi.Output.all(args.oidc_provider_arn, args.oidc_issuer).apply(
                lambda v: trust_policy(v[0], v[1], args.namespace, args.service_account)),
            tags=args.tags, opts=child)
        aws.iam.RolePolicy(f"{name}-policy", role=role.id, policy=pulumi.Output.all(
            args.bucket_name, args.kms_key_arn).apply(
            lambda v: access_policy(v[0], v[1], args.namespace, args.region)), opts=child)
        self.service_account = k8s.core.v1.ServiceAccount(
            f"{name}-sa", metadata={"name": args.service_account, "namespace": args.namespace,
                                    "labels": MANAGED_BY, "annotations": {"eks.amazonaws.com/role-arn": role.arn}},
            automount_service_account_token=False, opts=child)
        self.account = args.service_account
        # The pod identity webhook injects AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE; the key signs checkpoints.
        self.env: list[dict] = [checkpoint_key(name, args.namespace, self)]
        self.pod_labels: dict[str, str] = {}
        self.role_arn = role.arn
        self.uri = pulumi.Output.concat("s3://", args.bucket_name, "/", args.namespace)
        self.register_outputs({"roleArn": self.role_arn, "uri": self.uri})

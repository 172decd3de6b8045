"""S3Bucket: a dataset/checkpoint bucket that stays in its Region, encrypted with its own customer-managed key."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pulumi
import pulumi_aws as aws
from pydantic import BaseModel, ConfigDict, Field
from sahab.components.aws.kms import customer_key
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import Bucket, KeyPolicy
from sahab.components.validation import AWS_REGION


class S3BucketArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    bucket: Bucket
    """The bucket from the fleet config: purpose, versioning, version expiry, replication target. Required."""
    allowed_regions: tuple[str, ...] = ("me-central-1",)
    """Regions a replica may be in. Default: me-central-1 only (pass the fleet's residency list)."""
    keys: KeyPolicy = KeyPolicy()
    """Rotation and deletion window of the bucket's keys. Default: rotate yearly, 30-day window."""
    force_destroy: bool = False
    """Let `pulumi destroy` delete a bucket that still holds objects. Default: false."""
    abort_multipart_days: Annotated[int, Field(ge=1)] = 7
    """Remove the parts of uploads left incomplete after this many days. Default: 7."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource (beyond the provider's default tags). Default: none."""


def bucket_policy(bucket_arn: str, key_arn: str) -> str:
    """Refuse plain HTTP and old TLS, and uploads that ask for any key but the bucket's own."""
    objects = f"{bucket_arn}/*"
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
         "Resource": [bucket_arn, objects], "Condition": {"Bool": {"aws:SecureTransport": "false"}}},
        {"Sid": "DenyOutdatedTls", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
         "Resource": [bucket_arn, objects], "Condition": {"NumericLessThan": {"s3:TlsVersion": "1.2"}}},
        {"Sid": "DenyOtherKeys", "Effect": "Deny", "Principal": "*", "Action": "s3:PutObject", "Resource": objects,
         "Condition": {"StringNotEqualsIfExists": {"s3:x-amz-server-side-encryption-aws-kms-key-id": key_arn}}},
    ]})


class S3Bucket(pulumi.ComponentResource):
    bucket_name: pulumi.Output[str]
    arn: pulumi.Output[str]
    kms_key_arn: pulumi.Output[str]
    replica_bucket_name: pulumi.Output[str] | None

    def __init__(self, name: str, args: S3BucketArgs, opts: pulumi.ResourceOptions | None = None):
        spec = args.bucket
        if spec.replicate_to is not None:
            if not AWS_REGION.match(spec.replicate_to):
                raise ConfigError(f"bucket {spec.name}.replicate_to", f"{spec.replicate_to!r} is not an AWS Region")
            if spec.replicate_to not in args.allowed_regions:
                raise ConfigError(f"bucket {spec.name}.replicate_to", f"{spec.replicate_to!r} is outside the "
                                  f"residency list; allowed: {', '.join(args.allowed_regions)}")
            if not spec.versioning:
                raise ConfigError(f"bucket {spec.name}.versioning", "replication needs versioning on")
        super().__init__("sahab:aws:Bucket", name, None, opts)
        self._args = args
        self._tags = {**args.tags, "sahab.io/bucket": spec.name, "sahab.io/purpose": spec.purpose}

        key, bucket, versioning = self._protected(name, region=None)
        self.bucket_name = bucket.bucket
        self.arn = bucket.arn
        self.kms_key_arn = key.arn
        self.replica_bucket_name = None
        if spec.replicate_to is not None:
            self._replicate(name, key, bucket, versioning, spec.replicate_to)
        self.register_outputs({"bucketName": self.bucket_name, "arn": self.arn, "kmsKeyArn": self.kms_key_arn,
                               "replicaBucketName": self.replica_bucket_name})

    def _protected(self, name: str, region: str | None):
        """A bucket with its key and every guard. `region` is None for the provider's Region."""
        args, spec, child = self._args, self._args.bucket, pulumi.ResourceOptions(parent=self)
        key = customer_key(f"{name}-key", description=f"S3 bucket {spec.name} ({spec.purpose})", keys=args.keys,
                           policy=None, tags=self._tags, opts=child, region=region)
        bucket = aws.s3.Bucket(f"{name}-bucket", force_destroy=args.force_destroy, region=region, tags=self._tags,
                               opts=child)
        aws.s3.BucketOwnershipControls(f"{name}-ownership", bucket=bucket.id, region=region, opts=child,
                                       rule=aws.s3.BucketOwnershipControlsRuleArgs(object_ownership="BucketOwnerEnforced"))
        block = aws.s3.BucketPublicAccessBlock(f"{name}-public-access-block", bucket=bucket.id, region=region,
                                               block_public_acls=True, block_public_policy=True,
                                               ignore_public_acls=True, restrict_public_buckets=True, opts=child)
        aws.s3.BucketServerSideEncryptionConfiguration(
            f"{name}-encryption", bucket=bucket.id, region=region, opts=child,
            rules=[aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                apply_server_side_encryption_by_default=aws.s3.
                BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                    sse_algorithm="aws:kms", kms_master_key_id=key.arn),
                bucket_key_enabled=True, blocked_encryption_types=["SSE-C"])])
        versioning = aws.s3.BucketVersioning(
            f"{name}-versioning", bucket=bucket.id, region=region, opts=child,
            versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(
                status="Enabled" if spec.versioning else "Suspended"))
        rules = [aws.s3.BucketLifecycleConfigurationRuleArgs(
            id="abort-incomplete-uploads", status="Enabled", filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(),
            abort_incomplete_multipart_upload=aws.s3.BucketLifecycleConfigurationRuleAbortIncompleteMultipartUploadArgs(
                days_after_initiation=args.abort_multipart_days))]
        if spec.versioning:
            rules.append(aws.s3.BucketLifecycleConfigurationRuleArgs(
                id="expire-old-versions", status="Enabled", filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(),
                noncurrent_version_expiration=aws.s3.BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(
                    noncurrent_days=spec.noncurrent_version_days)))
        aws.s3.BucketLifecycleConfiguration(f"{name}-lifecycle", bucket=bucket.id, region=region, rules=rules,
                                            opts=pulumi.ResourceOptions(parent=self, depends_on=[versioning]))
        aws.s3.BucketPolicy(f"{name}-policy", bucket=bucket.id, region=region,
                            policy=pulumi.Output.all(bucket.arn, key.arn).apply(lambda v: bucket_policy(v[0], v[1])),
                            opts=pulumi.ResourceOptions(parent=self, depends_on=[block]))
        return key, bucket, versioning

    def _replicate(self, name: str, key: aws.kms.Key, bucket: aws.s3.Bucket, versioning: Any, region: str) -> None:
        """Copy every object, still KMS-encrypted, to a bucket in another allowed Region."""
        child = pulumi.ResourceOptions(parent=self)
        replica_key, replica, replica_versioning = self._protected(f"{name}-replica", region=region)
        role = aws.iam.Role(f"{name}-replication-role", tags=self._tags, opts=child,
                            assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [{
                                "Effect": "Allow", "Principal": {"Service": "s3.amazonaws.com"},
                                "Action": "sts:AssumeRole"}]}))
        aws.iam.RolePolicy(
            f"{name}-replication-policy", role=role.id, opts=child,
            policy=pulumi.Output.all(bucket.arn, replica.arn, key.arn, replica_key.arn).apply(
                lambda v: json.dumps({"Version": "2012-10-17", "Statement": [
                    {"Effect": "Allow", "Action": ["s3:GetReplicationConfiguration", "s3:ListBucket"],
                     "Resource": v[0]},
                    {"Effect": "Allow", "Action": ["s3:GetObjectVersionForReplication", "s3:GetObjectVersionAcl",
                                                   "s3:GetObjectVersionTagging"], "Resource": f"{v[0]}/*"},
                    {"Effect": "Allow", "Action": ["s3:ReplicateObject", "s3:ReplicateDelete", "s3:ReplicateTags"],
                     "Resource": f"{v[1]}/*"},
                    {"Effect": "Allow", "Action": ["kms:Decrypt"], "Resource": v[2]},
                    {"Effect": "Allow", "Action": ["kms:Encrypt", "kms:GenerateDataKey"], "Resource": v[3]}]})))
        aws.s3.BucketReplicationConfig(
            f"{name}-replication", bucket=bucket.id, role=role.arn,
            rules=[aws.s3.BucketReplicationConfigRuleArgs(
                id="in-country-replica", status="Enabled", filter=aws.s3.BucketReplicationConfigRuleFilterArgs(),
                delete_marker_replication=aws.s3.BucketReplicationConfigRuleDeleteMarkerReplicationArgs(
                    status="Enabled"),
                source_selection_criteria=aws.s3.BucketReplicationConfigRuleSourceSelectionCriteriaArgs(
                    sse_kms_encrypted_objects=aws.s3.
                    BucketReplicationConfigRuleSourceSelectionCriteriaSseKmsEncryptedObjectsArgs(status="Enabled")),
                destination=aws.s3.BucketReplicationConfigRuleDestinationArgs(
                    bucket=replica.arn, storage_class="STANDARD",
                    encryption_configuration=aws.s3.BucketReplicationConfigRuleDestinationEncryptionConfigurationArgs(
                        replica_kms_key_id=replica_key.arn)))],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[versioning, replica_versioning]))
        self.replica_bucket_name = replica.bucket

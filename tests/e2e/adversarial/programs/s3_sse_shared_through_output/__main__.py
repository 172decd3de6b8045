"""Leak: one encryption configuration computed from two buckets' ids; it configures only the first, the second stays
unencrypted.
"""
# expect: aws-s3-bucket-sse-kms-cmk second

import json

import pulumi
import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

def tls_only(bucket, actions="s3:*", key="aws:SecureTransport"):
    return aws.s3.BucketPolicy(f"{bucket._name}-tls", bucket=bucket.id, policy=bucket.arn.apply(
        lambda arn: json.dumps({"Version": "2012-10-17", "Statement": [{
            "Effect": "Deny", "Principal": "*", "Action": actions, "Resource": [arn, f"{arn}/*"],
            "Condition": {"Bool": {key: "false"}}}]})))


def sse(name, bucket, key):
    return aws.s3.BucketServerSideEncryptionConfiguration(name, bucket=bucket, rules=[{
        "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn},
        "bucket_key_enabled": True}])

first = aws.s3.BucketV2("first")
second = aws.s3.BucketV2("second")
tls_only(first)
tls_only(second)
sse("shared-sse", pulumi.Output.all(first.id, second.id).apply(lambda ids: ids[0]), key)

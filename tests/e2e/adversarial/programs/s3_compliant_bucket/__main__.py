"""Look-alike: a bucket with SSE-KMS under this program's key and a full TLS-only policy."""
# expect: pass

import json

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

bucket = aws.s3.BucketV2("data")
sse("data-sse", bucket.id, key)
tls_only(bucket)

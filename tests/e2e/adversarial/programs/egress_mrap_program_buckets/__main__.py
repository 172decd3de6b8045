"""Look-alike: a Multi-Region Access Point over two buckets of this program, both in me-central-1."""
# expect: pass

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)


def bucket(name):
    b = aws.s3.BucketV2(name)
    aws.s3.BucketServerSideEncryptionConfiguration(f"{name}-sse", bucket=b.id, rules=[{
        "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
    aws.s3.BucketPolicy(f"{name}-tls", bucket=b.id, policy=b.arn.apply(lambda arn: json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))
    return b


a, b = bucket("a"), bucket("b")
aws.s3control.MultiRegionAccessPoint("mrap", details={"name": "orders", "regions": [
    {"bucket": a.id}, {"bucket": b.id}]})

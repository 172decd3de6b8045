"""Leak (egress): access logs and the Spot Instance data feed delivered to buckets this program declares through a
provider pinned to Ireland, each named by its plain name (the literal name, or `bucket.bucket`): each bucket is
placed where it is declared, outside the UAE (one verdict per fact: the bucket's own place rule reports it)."""
# expect: aws-all-resource-region-allowed logs
# expect: aws-all-resource-region-allowed exports

import json

import pulumi
import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
ireland = aws.Provider("ireland", region="eu-west-1")


def private_bucket(name, opts=None, **kwargs):
    """A bucket every bucket rule accepts: SSE-KMS under this program's key, TLS only, public access blocked."""
    bucket = aws.s3.BucketV2(name, opts=opts, **kwargs)
    aws.s3.BucketServerSideEncryptionConfiguration(f"{name}-sse", bucket=bucket.id, opts=opts, rules=[{
        "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
    aws.s3.BucketPolicy(f"{name}-tls", bucket=bucket.id, opts=opts, policy=bucket.arn.apply(lambda arn: json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))
    aws.s3.BucketPublicAccessBlock(f"{name}-pab", bucket=bucket.id, opts=opts, block_public_acls=True,
                                   block_public_policy=True, ignore_public_acls=True, restrict_public_buckets=True)
    return bucket


abroad = pulumi.ResourceOptions(provider=ireland)
logs = private_bucket("logs", opts=abroad, bucket="sahab-access-logs-euw1")
exports = private_bucket("exports", opts=abroad)
data = private_bucket("data")
aws.s3.BucketLoggingV2("data-logging", bucket=data.id, target_bucket="sahab-access-logs-euw1", target_prefix="data/")
aws.ec2.SpotDatafeedSubscription("spot-feed", bucket=exports.bucket, prefix="spot/")

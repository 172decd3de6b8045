"""Look-alike: an OpenSearch Ingestion pipeline whose sinks are a bucket this program creates and an OpenSearch
domain in me-central-1."""
# expect: pass

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)


def private_bucket(name):
    """A bucket every bucket rule accepts: SSE-KMS under this program's key, TLS only, public access blocked."""
    bucket = aws.s3.BucketV2(name)
    aws.s3.BucketServerSideEncryptionConfiguration(f"{name}-sse", bucket=bucket.id, rules=[{
        "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
    aws.s3.BucketPolicy(f"{name}-tls", bucket=bucket.id, policy=bucket.arn.apply(lambda arn: json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))
    aws.s3.BucketPublicAccessBlock(f"{name}-pab", bucket=bucket.id, block_public_acls=True, block_public_policy=True,
                                   ignore_public_acls=True, restrict_public_buckets=True)
    return bucket

archive = private_bucket("log-archive")
BODY = """version: "2"
log-pipeline:
  source:
    http:
      path: "/logs"
  sink:
    - s3:
        bucket: {bucket}
        aws:
          region: me-central-1
          sts_role_arn: arn:aws:iam::111122223333:role/osis
    - opensearch:
        hosts: ["https://vpc-logs-abc123.me-central-1.es.amazonaws.com"]
        index: logs
"""
aws.opensearchingest.Pipeline("logs-pipeline", pipeline_name="logs-pipeline", min_units=1, max_units=2,
                              pipeline_configuration_body=archive.bucket.apply(lambda b: BODY.format(bucket=b)),
                              encryption_at_rest_options={"kms_key_arn": key.arn})

"""Look-alike: asynchronous inference responses go to a bucket this program creates in me-central-1."""
# expect: pass

import json

import pulumi
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


results = private_bucket("inference-results")
aws.sagemaker.EndpointConfiguration("async", kms_key_arn=key.arn, production_variants=[{
    "variant_name": "main", "model_name": "scorer", "initial_instance_count": 1, "instance_type": "ml.m5.large"}],
    async_inference_config={"output_config": {
        "s3_output_path": pulumi.Output.concat("s3://", results.bucket, "/out"),
        "s3_failure_path": pulumi.Output.concat("s3://", results.bucket, "/failed"), "kms_key_id": key.arn}})

"""Look-alike (egress, URLs): the config map's `s3://` URL names the checkpoint bucket this program creates in
me-central-1."""
# expect: pass

import json

import pulumi_aws as aws
import pulumi_kubernetes as k8s

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
bucket = aws.s3.BucketV2("ckpt")
aws.s3.BucketServerSideEncryptionConfiguration("ckpt-sse", bucket=bucket.id, rules=[{
    "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
aws.s3.BucketPolicy("ckpt-tls", bucket=bucket.id, policy=bucket.arn.apply(lambda arn: json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
    "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))
aws.s3.BucketPublicAccessBlock("ckpt-pab", bucket=bucket.id, block_public_acls=True, block_public_policy=True,
                               ignore_public_acls=True, restrict_public_buckets=True)
aws.s3.BucketVersioningV2("ckpt-versioning", bucket=bucket.id, versioning_configuration={"status": "Enabled"})

k8s.core.v1.ConfigMap("train-config", metadata={"namespace": "research"},
                      data={"CHECKPOINT_URI": bucket.bucket.apply(lambda name: f"s3://{name}/run-7")})

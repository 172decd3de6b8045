"""Look-alike: S3 replication between two compliant buckets of this program; the replication configuration is
judged by the S3 replication rule (SAHAB-AWS-004), so it is not an unjudged data store."""
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
    aws.s3.BucketVersioningV2(f"{name}-v", bucket=b.id, versioning_configuration={"status": "Enabled"})
    return b


src, dst = bucket("src"), bucket("dst")
aws.s3.BucketReplicationConfig("rep", bucket=src.id, role="arn:aws:iam::111122223333:role/rep", rules=[{
    "id": "all", "status": "Enabled", "destination": {"bucket": dst.arn,
    "encryption_configuration": {"replica_kms_key_id": key.arn}},
    "source_selection_criteria": {"sse_kms_encrypted_objects": {"status": "Enabled"}}}])

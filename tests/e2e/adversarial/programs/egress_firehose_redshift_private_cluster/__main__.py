"""Look-alike: a Firehose stream loading into a Redshift cluster at a private address inside the VPC."""
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


staging = private_bucket("staging")
ROLE = "arn:aws:iam::111122223333:role/firehose"
aws.kinesis.FirehoseDeliveryStream("to-dw", destination="redshift",
    server_side_encryption={"enabled": True, "key_type": "CUSTOMER_MANAGED_CMK", "key_arn": key.arn},
    redshift_configuration={"role_arn": ROLE, "username": "loader",
                            "cluster_jdbcurl": "jdbc:redshift://10.20.4.8:5439/events",
                            "password": "not-a-secret", "data_table_name": "events",
                            "s3_configuration": {"role_arn": ROLE, "bucket_arn": staging.arn}})

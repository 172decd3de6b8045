"""Look-alike (egress): access logs, CloudTrail log files, the Spot Instance data feed, a Firehose stream and a
DataSync location delivered to buckets this program creates in me-central-1, each named by its plain name (the
literal name it declares, or `bucket.bucket`) where the input takes a name, and by the ARN spelled from that name
(`arn:aws:s3:::<name>`) where it takes an ARN."""
# expect: pass

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)


def private_bucket(name, **kwargs):
    """A bucket every bucket rule accepts: SSE-KMS under this program's key, TLS only, public access blocked."""
    bucket = aws.s3.BucketV2(name, **kwargs)
    aws.s3.BucketServerSideEncryptionConfiguration(f"{name}-sse", bucket=bucket.id, rules=[{
        "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
    aws.s3.BucketPolicy(f"{name}-tls", bucket=bucket.id, policy=bucket.arn.apply(lambda arn: json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))
    aws.s3.BucketPublicAccessBlock(f"{name}-pab", bucket=bucket.id, block_public_acls=True, block_public_policy=True,
                                   ignore_public_acls=True, restrict_public_buckets=True)
    return bucket


logs = private_bucket("logs", bucket="sahab-access-logs-mec1")
trail_logs = private_bucket("trail-logs")
exports = private_bucket("exports")
data = private_bucket("data")
aws.s3.BucketLoggingV2("data-logging", bucket=data.id, target_bucket="sahab-access-logs-mec1", target_prefix="data/")
aws.cloudtrail.Trail("trail", s3_bucket_name=trail_logs.bucket, kms_key_id=key.arn, enable_log_file_validation=True)
aws.ec2.SpotDatafeedSubscription("spot-feed", bucket=exports.bucket, prefix="spot/")
aws.kinesis.FirehoseDeliveryStream(
    "stream", destination="extended_s3",
    server_side_encryption={"enabled": True, "key_type": "CUSTOMER_MANAGED_CMK", "key_arn": key.arn},
    extended_s3_configuration={"role_arn": "arn:aws:iam::111122223333:role/firehose",
                               "bucket_arn": "arn:aws:s3:::sahab-access-logs-mec1", "kms_key_arn": key.arn})
aws.datasync.S3Location("archive-location", s3_bucket_arn=exports.bucket.apply(lambda b: f"arn:aws:s3:::{b}"),
                        subdirectory="/datasets",
                        s3_config={"bucket_access_role_arn": "arn:aws:iam::111122223333:role/datasync"})

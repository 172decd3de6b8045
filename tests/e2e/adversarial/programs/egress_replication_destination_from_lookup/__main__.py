"""Leak (fail closed): S3 replication whose destination is the ARN of a bucket found by a lookup, which the stack
does not declare: where it is cannot be shown offline."""
# expect: cloud-all-resource-references-in-country repl

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
partner = aws.s3.get_bucket_output(bucket="partner-archive")
bucket = aws.s3.BucketV2("bucket")
aws.s3.BucketReplicationConfig("repl", bucket=bucket.id, role="arn:aws:iam::111122223333:role/repl", rules=[{
    "id": "all", "status": "Enabled", "destination": {"bucket": partner.arn}}])

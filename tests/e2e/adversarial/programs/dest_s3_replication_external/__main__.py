"""Leak (fail closed): S3 replication to a bucket of another account."""
# expect: aws-s3-bucketreplication-destination-region-allowed repl
# expect: cloud-all-resource-references-in-country repl

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

bucket = aws.s3.BucketV2("bucket")
aws.s3.BucketReplicationConfig("repl", bucket=bucket.id, role="arn:aws:iam::111122223333:role/repl", rules=[{
    "id": "all", "status": "Enabled", "destination": {"bucket": "arn:aws:s3:::partner-archive"}}])

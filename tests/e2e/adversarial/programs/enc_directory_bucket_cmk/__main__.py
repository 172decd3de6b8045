"""Look-alike: an S3 Express One Zone directory bucket staging training shards, SSE-KMS under a key this program
creates."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("shards", enable_key_rotation=True, deletion_window_in_days=30)
shards = aws.s3.DirectoryBucket("shards", bucket="shards--mec1-az1--x-s3", location={"name": "mec1-az1"})
aws.s3.BucketServerSideEncryptionConfiguration("shards-sse", bucket=shards.bucket, rules=[{
    "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn},
    "bucket_key_enabled": True}])

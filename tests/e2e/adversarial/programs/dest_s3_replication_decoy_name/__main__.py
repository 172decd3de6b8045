"""Leak (fail closed): S3 replication to a bucket of another account, whose name the program gives an in-country
resource of another kind (an SNS topic): a bucket name is S3's alone, so the topic is not the bucket."""
# expect: aws-s3-bucketreplication-destination-region-allowed repl
# expect: cloud-all-resource-references-in-country repl

import pulumi_aws as aws

aws.sns.Topic("decoy", name="partner-archive", kms_master_key_id="alias/aws/sns")

bucket = aws.s3.BucketV2("bucket")
aws.s3.BucketReplicationConfig("repl", bucket=bucket.id, role="arn:aws:iam::111122223333:role/repl", rules=[{
    "id": "all", "status": "Enabled", "destination": {"bucket": "arn:aws:s3:::partner-archive"}}])

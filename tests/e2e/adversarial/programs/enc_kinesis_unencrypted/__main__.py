"""Leak: a Kinesis stream without server-side encryption."""
# expect: aws-storage-datastore-encrypted-cmk clicks

import pulumi_aws as aws

aws.kinesis.Stream("clicks", shard_count=1)

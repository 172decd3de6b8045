"""Leak: a Kinesis stream without server-side encryption."""
# expect: aws-all-datastore-encrypted-cmk clicks

import pulumi_aws as aws

aws.kinesis.Stream("clicks", shard_count=1)

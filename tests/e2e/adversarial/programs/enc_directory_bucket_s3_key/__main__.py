"""Leak: an S3 Express One Zone directory bucket staging training shards under S3's own key (SSE-S3, the
default)."""
# expect: aws-s3-bucket-sse-kms-cmk shards

import pulumi_aws as aws

aws.s3.DirectoryBucket("shards", bucket="shards--mec1-az1--x-s3", location={"name": "mec1-az1"})

"""Leak: a CloudWatch log group without a KMS key."""
# expect: aws-storage-datastore-encrypted-cmk app-logs

import pulumi_aws as aws

aws.cloudwatch.LogGroup("app-logs", retention_in_days=30)

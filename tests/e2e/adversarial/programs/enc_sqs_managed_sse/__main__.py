"""Leak: an SQS queue with SQS-managed encryption (a provider-managed key)."""
# expect: aws-storage-datastore-encrypted-cmk jobs

import pulumi_aws as aws

aws.sqs.Queue("jobs", sqs_managed_sse_enabled=True)

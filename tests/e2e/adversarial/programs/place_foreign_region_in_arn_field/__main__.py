"""Leak: a queue in the country whose dead letters go to a queue given by an eu-west-1 ARN (the ARN's region
field), while its own name spells the UAE."""
# expect: cloud-all-resource-references-in-country q

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.sqs.Queue("q", name="orders-me-central-1", kms_master_key_id=key.arn, redrive_policy=json.dumps(
    {"deadLetterTargetArn": "arn:aws:sqs:eu-west-1:111122223333:orders-me-central-1-dlq", "maxReceiveCount": 5}))

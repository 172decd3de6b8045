"""Leak (public exposure): a queue of lab results whose policy lets anyone send and receive."""
# expect: cloud-all-resource-policy-not-public results-policy

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

queue = aws.sqs.Queue("results", kms_master_key_id=key.arn)
aws.sqs.QueuePolicy("results-policy", queue_url=queue.id, policy=queue.arn.apply(lambda arn: json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"},
    "Action": ["sqs:SendMessage", "sqs:ReceiveMessage"], "Resource": arn}]})))

"""Look-alike (public exposure): `Principal: "*"` pinned to one SNS topic by aws:SourceArn, the standard fan-out
policy."""
# expect: pass

import json

import pulumi
import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

topic = aws.sns.Topic("events", kms_master_key_id=key.arn)
queue = aws.sqs.Queue("inbox", kms_master_key_id=key.arn)
aws.sqs.QueuePolicy("inbox-policy", queue_url=queue.id, policy=pulumi.Output.all(queue.arn, topic.arn).apply(
    lambda a: json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*",
    "Action": "sqs:SendMessage", "Resource": a[0], "Condition": {"ArnEquals": {"aws:SourceArn": a[1]}}}]})))

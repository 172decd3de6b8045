"""Look-alike: resources in me-central-1 whose names spell a foreign region (a queue, a log group with slashes, a
role, and a queue's URL and ARN that carry those names). A name is the resource's identity, not a destination:
its ARN's region field and its endpoint's host say where it is."""
# expect: pass

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
queue = aws.sqs.Queue("q", name="orders-from-eu-west-1", kms_master_key_id=key.arn)
aws.cloudwatch.LogGroup("lg", name="/migrated/eu-west-1/orders", kms_key_id=key.arn, retention_in_days=365)
aws.iam.Role("role", name="replicator-eu-west-1", assume_role_policy=json.dumps({"Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}))
dlq = aws.sqs.Queue("dlq", name="orders-dlq-us-east-1", kms_master_key_id=key.arn)
aws.sqs.RedrivePolicy("redrive", queue_url=queue.url, redrive_policy=dlq.arn.apply(lambda arn: json.dumps(
    {"deadLetterTargetArn": arn, "maxReceiveCount": 5})))

"""Leak: a log subscription filter streaming to a Firehose in Virginia."""
# expect: cloud-all-resource-references-in-country stream-out

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

group = aws.cloudwatch.LogGroup("logs", kms_key_id=key.arn, retention_in_days=30)
aws.cloudwatch.LogSubscriptionFilter("stream-out", log_group=group.name, filter_pattern="",
    destination_arn="arn:aws:firehose:us-east-1:111122223333:deliverystream/out")

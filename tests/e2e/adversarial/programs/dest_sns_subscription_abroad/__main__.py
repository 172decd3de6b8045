"""Leak: an SNS subscription delivering to a queue in Ireland."""
# expect: cloud-all-resource-references-in-country sub

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

topic = aws.sns.Topic("topic", kms_master_key_id=key.arn)
aws.sns.TopicSubscription("sub", topic=topic.arn, protocol="sqs",
                          endpoint="arn:aws:sqs:eu-west-1:111122223333:orders")

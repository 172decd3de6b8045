"""Look-alike: the subscription delivers to an encrypted queue of this program in me-central-1."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

topic = aws.sns.Topic("topic", kms_master_key_id=key.arn)
queue = aws.sqs.Queue("queue", kms_master_key_id=key.arn)
aws.sns.TopicSubscription("sub", topic=topic.arn, protocol="sqs", endpoint=queue.arn)

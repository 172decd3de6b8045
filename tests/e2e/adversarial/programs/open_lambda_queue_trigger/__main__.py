"""Look-alike (open world): a function fed by an SQS queue, both under this program's key. The event source mapping's
key input encrypts its filter criteria; it is no unjudged store."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
queue = aws.sqs.Queue("jobs", kms_master_key_id=key.arn)
handler = aws.lambda_.Function("handler", role="arn:aws:iam::111122223333:role/handler", runtime="python3.12",
                               handler="app.handler", s3_bucket="code", s3_key="handler.zip", kms_key_arn=key.arn)
aws.lambda_.EventSourceMapping("jobs-trigger", event_source_arn=queue.arn, function_name=handler.arn, batch_size=10)

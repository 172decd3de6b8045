"""Look-alike (open world): data stores the pack judges, each under this program's key."""
# expect: pass


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.sqs.Queue("events", kms_master_key_id=key.arn)
aws.dynamodb.Table("sessions", hash_key="id", attributes=[{"name": "id", "type": "S"}], billing_mode="PAY_PER_REQUEST",
                   server_side_encryption={"enabled": True, "kms_key_arn": key.arn})
aws.cloudwatch.LogGroup("app", kms_key_id=key.arn, retention_in_days=90)

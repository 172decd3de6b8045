"""Look-alike: a DynamoDB table under this program's key."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.dynamodb.Table("table", hash_key="id", attributes=[{"name": "id", "type": "S"}], billing_mode="PAY_PER_REQUEST",
                   server_side_encryption={"enabled": True, "kms_key_arn": key.arn})

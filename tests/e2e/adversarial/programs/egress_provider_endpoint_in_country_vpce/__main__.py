"""Look-alike: a provider whose DynamoDB endpoint is an in-country interface VPC endpoint (its host names
me-central-1)."""
# expect: pass

import pulumi
import pulumi_aws as aws

p = aws.Provider("p", region="me-central-1", endpoints=[{
    "dynamodb": "https://vpce-0abc123-xyz.dynamodb.me-central-1.vpce.amazonaws.com"}])
key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.dynamodb.Table("t", hash_key="id", attributes=[{"name": "id", "type": "S"}], billing_mode="PAY_PER_REQUEST",
                   server_side_encryption={"enabled": True, "kms_key_arn": key.arn},
                   point_in_time_recovery={"enabled": True}, opts=pulumi.ResourceOptions(provider=p))

"""Leak: a provider pinned to me-central-1 whose DynamoDB endpoint is overridden to a host the pack cannot place:
every call of the table, with its items, goes there."""
# expect: cloud-all-resource-references-in-country p

import pulumi
import pulumi_aws as aws

p = aws.Provider("p", region="me-central-1", endpoints=[{"dynamodb": "https://ddb.partner-cloud.io"}])
key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.dynamodb.Table("t", hash_key="id", attributes=[{"name": "id", "type": "S"}], billing_mode="PAY_PER_REQUEST",
                   server_side_encryption={"enabled": True, "kms_key_arn": key.arn},
                   point_in_time_recovery={"enabled": True}, opts=pulumi.ResourceOptions(provider=p))

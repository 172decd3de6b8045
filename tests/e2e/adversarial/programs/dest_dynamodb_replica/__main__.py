"""Leak: a DynamoDB global-table replica in Virginia."""
# expect: aws-dynamodb-table-replica-region-allowed table

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.dynamodb.Table("table", hash_key="id", attributes=[{"name": "id", "type": "S"}], billing_mode="PAY_PER_REQUEST",
                   stream_enabled=True, stream_view_type="NEW_AND_OLD_IMAGES",
                   server_side_encryption={"enabled": True, "kms_key_arn": key.arn},
                   replicas=[{"region_name": "us-east-1"}])

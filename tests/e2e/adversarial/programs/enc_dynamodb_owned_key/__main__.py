"""Leak: a DynamoDB table under the AWS-owned key (the default)."""
# expect: aws-storage-datastore-encrypted-cmk table

import pulumi_aws as aws

aws.dynamodb.Table("table", hash_key="id", attributes=[{"name": "id", "type": "S"}], billing_mode="PAY_PER_REQUEST")

"""Leak (fail closed): a DynamoDB point-in-time export into a bucket of another account, named with a format
string."""
# expect: cloud-all-resource-references-in-country export

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
table = aws.dynamodb.Table("patients", hash_key="id", attributes=[{"name": "id", "type": "S"}],
                           billing_mode="PAY_PER_REQUEST", point_in_time_recovery={"enabled": True},
                           server_side_encryption={"enabled": True, "kms_key_arn": key.arn})
ACCOUNT = "444455556666"
aws.dynamodb.TableExport("export", table_arn=table.arn, s3_bucket=f"exports-{ACCOUNT}", s3_bucket_owner=ACCOUNT,
                         s3_sse_algorithm="KMS", s3_sse_kms_key_id=key.arn)

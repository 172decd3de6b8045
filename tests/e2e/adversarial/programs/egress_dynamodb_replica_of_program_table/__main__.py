"""Look-alike (egress): a DynamoDB replica whose global table is a table of this program in me-central-1, so the
replication stays in the allowed Region. (AWS itself refuses a replica in its table's own Region; with one UAE
Region there is no deployable all-UAE replica, and the pack judges residency alone.)"""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
table = aws.dynamodb.Table("orders", hash_key="id", attributes=[{"name": "id", "type": "S"}],
                           billing_mode="PAY_PER_REQUEST", stream_enabled=True, stream_view_type="NEW_AND_OLD_IMAGES",
                           server_side_encryption={"enabled": True, "kms_key_arn": key.arn},
                           point_in_time_recovery={"enabled": True})

aws.dynamodb.TableReplica("orders-replica", global_table_arn=table.arn, kms_key_arn=key.arn,
                          point_in_time_recovery=True)

"""Leak (egress): a DynamoDB replica in me-central-1 that joins a global table in Ireland: every write to the
replica is replicated to the table's Region."""
# expect: cloud-all-resource-references-in-country orders-replica

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.dynamodb.TableReplica("orders-replica", global_table_arn="arn:aws:dynamodb:eu-west-1:111122223333:table/orders",
                          kms_key_arn=key.arn, point_in_time_recovery=True)

"""Leak (fail closed): a DynamoDB replica in me-central-1 that joins a global table found by a lookup the stack
does not declare: where the table (and so every write to the replica) goes cannot be shown offline."""
# expect: cloud-all-resource-references-in-country orders-replica

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
orders = aws.dynamodb.get_table_output(name="orders")

aws.dynamodb.TableReplica("orders-replica", global_table_arn=orders.arn, kms_key_arn=key.arn,
                          point_in_time_recovery=True)

"""Leak (egress): a DMS task's target is built with apply() from this program's own target endpoint, but the value
is another account's endpoint, which sends the data wherever its own settings say."""
# expect: cloud-all-resource-references-in-country swapped-task

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
instance = aws.dms.ReplicationInstance("dms", replication_instance_id="crm-migrate",
                                       replication_instance_class="dms.t3.medium", kms_key_arn=key.arn,
                                       publicly_accessible=False)
source = aws.dms.Endpoint("crm-db", endpoint_id="crm-db", endpoint_type="source", engine_name="postgres",
                          server_name="10.0.4.20", port=5432, database_name="crm", username="dms",
                          kms_key_arn=key.arn)
changes = aws.kinesis.Stream("changes", shard_count=1, encryption_type="KMS", kms_key_id=key.arn)
feed = aws.dms.Endpoint("changes", endpoint_id="changes", endpoint_type="target", engine_name="kinesis",
                        kms_key_arn=key.arn, kinesis_settings={
                            "stream_arn": changes.arn,
                            "service_access_role_arn": "arn:aws:iam::111122223333:role/dms-access"})
# The dependency on `feed` is real; the ARN is not feed's.
elsewhere = feed.endpoint_arn.apply(lambda _: "arn:aws:dms:me-central-1:999988887777:endpoint:PARTNERSINK")
aws.dms.ReplicationTask("swapped-task", replication_task_id="swapped-task", migration_type="full-load",
                        replication_instance_arn=instance.replication_instance_arn,
                        source_endpoint_arn=source.endpoint_arn, target_endpoint_arn=elsewhere,
                        table_mappings='{"rules": []}')

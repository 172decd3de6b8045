"""Leak (fail closed): a DMS task and a DataSync task whose target is an endpoint or a location this program does not
create (named by an ARN in me-central-1: the resource is in the country, where it sends data is not shown), and a
DMS target endpoint naming its bucket in its extra connection attributes."""
# expect: cloud-all-resource-references-in-country existing-task
# expect: cloud-all-resource-references-in-country sync-out
# expect: cloud-all-resource-references-in-country attr-target

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)


def private_bucket(name):
    """A bucket every bucket rule accepts: SSE-KMS under this program's key, TLS only, public access blocked."""
    bucket = aws.s3.BucketV2(name)
    aws.s3.BucketServerSideEncryptionConfiguration(f"{name}-sse", bucket=bucket.id, rules=[{
        "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
    aws.s3.BucketPolicy(f"{name}-tls", bucket=bucket.id, policy=bucket.arn.apply(lambda arn: json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))
    aws.s3.BucketPublicAccessBlock(f"{name}-pab", bucket=bucket.id, block_public_acls=True, block_public_policy=True,
                                   ignore_public_acls=True, restrict_public_buckets=True)
    return bucket

ROLE = "arn:aws:iam::111122223333:role/dms-access"
instance = aws.dms.ReplicationInstance("dms", replication_instance_id="crm-migrate",
                                       replication_instance_class="dms.t3.medium", kms_key_arn=key.arn,
                                       publicly_accessible=False)
source = aws.dms.Endpoint("crm-db", endpoint_id="crm-db", endpoint_type="source", engine_name="postgres",
                          server_name="10.0.4.20", port=5432, database_name="crm", username="dms",
                          kms_key_arn=key.arn)
MAPPINGS = json.dumps({"rules": [{"rule-type": "selection", "rule-id": "1", "rule-name": "all",
                                  "object-locator": {"schema-name": "%", "table-name": "%"},
                                  "rule-action": "include"}]})


def task(name, target):
    aws.dms.ReplicationTask(f"{name}-task", replication_task_id=f"{name}-task", migration_type="full-load-and-cdc",
                            replication_instance_arn=instance.replication_instance_arn,
                            source_endpoint_arn=source.endpoint_arn, target_endpoint_arn=target.endpoint_arn,
                            table_mappings=MAPPINGS)


aws.dms.ReplicationTask("existing-task", replication_task_id="existing-task", migration_type="full-load",
                        replication_instance_arn=instance.replication_instance_arn,
                        source_endpoint_arn=source.endpoint_arn,
                        target_endpoint_arn="arn:aws:dms:me-central-1:111122223333:endpoint:PARTNERTARGET",
                        table_mappings=MAPPINGS)
aws.datasync.Task("sync-out", source_location_arn="arn:aws:datasync:me-central-1:111122223333:location/loc-0a",
                  destination_location_arn="arn:aws:datasync:me-central-1:111122223333:location/loc-0b")
attr = aws.dms.Endpoint("attr-target", endpoint_id="attr-target", endpoint_type="target", engine_name="s3",
                        kms_key_arn=key.arn,
                        extra_connection_attributes="bucketName=partner-landing-zone;bucketFolder=crm;"
                                                    "dataFormat=parquet")
task("attr", attr)

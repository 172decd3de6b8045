"""Leak: DMS target endpoints that stream a database out through their engine settings: a Kafka broker, an OpenSearch
endpoint, a Kinesis stream found by lookup, a Redshift staging bucket, none of them this program's."""
# expect: cloud-all-resource-references-in-country partner-kafka
# expect: cloud-all-resource-references-in-country partner-search
# expect: cloud-all-resource-references-in-country partner-stream
# expect: cloud-all-resource-references-in-country partner-redshift

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


kafka = aws.dms.Endpoint("partner-kafka", endpoint_id="partner-kafka", endpoint_type="target", engine_name="kafka",
                         kafka_settings={"broker": "kafka-1.partner-stream.io:9092", "topic": "crm"},
                         kms_key_arn=key.arn)
search = aws.dms.Endpoint("partner-search", endpoint_id="partner-search", endpoint_type="target",
                          engine_name="opensearch", kms_key_arn=key.arn,
                          elasticsearch_settings={"endpoint_uri": "https://search.partner-logs.net",
                                                  "service_access_role_arn": ROLE})
feed = aws.kinesis.get_stream_output(name="partner-feed")
stream = aws.dms.Endpoint("partner-stream", endpoint_id="partner-stream", endpoint_type="target",
                          engine_name="kinesis", kms_key_arn=key.arn,
                          kinesis_settings={"stream_arn": feed.arn, "service_access_role_arn": ROLE,
                                            "message_format": "json"})
redshift = aws.dms.Endpoint("partner-redshift", endpoint_id="partner-redshift", endpoint_type="target",
                            engine_name="redshift", server_name="10.0.9.9", port=5439, database_name="dw",
                            username="dms", kms_key_arn=key.arn,
                            redshift_settings={"bucket_name": "partner-staging-bucket",
                                               "service_access_role_arn": ROLE})
for name, target in (("kafka", kafka), ("search", search), ("stream", stream), ("redshift", redshift)):
    task(name, target)

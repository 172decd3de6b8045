"""Look-alike: MSK Connect connectors that keep the data in the country: a sink into a bucket this program creates, a
sink into an OpenSearch domain in me-central-1, and a source connector reading a partner's database (data comes
in) into a cluster in me-central-1."""
# expect: pass

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

def connector(name, config, brokers):
    return aws.mskconnect.Connector(name, name=name, kafkaconnect_version="2.7.1",
        service_execution_role_arn="arn:aws:iam::111122223333:role/connect",
        capacity={"provisioned_capacity": {"mcu_count": 1, "worker_count": 1}},
        connector_configuration={"tasks.max": "1", **config},
        kafka_cluster={"apache_kafka_cluster": {"bootstrap_servers": brokers,
                                                "vpc": {"security_groups": ["sg-1"], "subnets": ["subnet-1"]}}},
        kafka_cluster_client_authentication={"authentication_type": "IAM"},
        kafka_cluster_encryption_in_transit={"encryption_type": "TLS"},
        plugins=[{"custom_plugin": {"arn": "arn:aws:kafkaconnect:me-central-1:111122223333:custom-plugin/p/1",
                                    "revision": 1}}])


BROKERS = ("b-1.crm.abc.c2.kafka.me-central-1.amazonaws.com:9098,"
           "b-2.crm.abc.c2.kafka.me-central-1.amazonaws.com:9098")

archive = private_bucket("orders-archive")
connector("orders-sink", {"connector.class": "io.confluent.connect.s3.S3SinkConnector", "topics": "orders",
                          "s3.bucket.name": archive.bucket, "s3.region": "me-central-1",
                          "flush.size": "1000"}, BROKERS)
connector("search-sink", {"connector.class": "io.aiven.kafka.connect.opensearch.OpensearchSinkConnector",
                          "topics": "orders",
                          "connection.url": "https://vpc-orders-abc123.me-central-1.es.amazonaws.com:443"},
          BROKERS)
connector("cdc-in", {"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
                     "database.hostname": "erp.partner-hosting.com", "database.dbname": "erp",
                     "topic.prefix": "erp"}, BROKERS)

"""Leak: MSK Connect connectors that copy topics out: a sink into a bucket outside this program, a sink into an
outside OpenSearch host, and a source connector that writes a database's changes into an outside Kafka cluster."""
# expect: cloud-all-resource-references-in-country orders-sink
# expect: cloud-all-resource-references-in-country search-sink
# expect: cloud-all-resource-references-in-country cdc-out

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
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

connector("orders-sink", {"connector.class": "io.confluent.connect.s3.S3SinkConnector", "topics": "orders",
                          "s3.bucket.name": "partner-orders-archive", "s3.region": "me-central-1"}, BROKERS)
connector("search-sink", {"connector.class": "io.aiven.kafka.connect.opensearch.OpensearchSinkConnector",
                          "topics": "orders", "connection.url": "https://search.partner-logs.net:443"}, BROKERS)
connector("cdc-out", {"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
                      "database.hostname": "10.0.4.20", "database.dbname": "crm", "topic.prefix": "crm"},
          "kafka-1.partner-stream.io:9092,kafka-2.partner-stream.io:9092")

"""Leak (in transit): MSK accepting plaintext clients."""
# expect: cloud-all-stream-cache-encrypted-in-transit stream


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.msk.Cluster("stream", kafka_version="3.6.0", number_of_broker_nodes=3, broker_node_group_info={
    "instance_type": "kafka.m5.large", "client_subnets": ["subnet-0a", "subnet-0b", "subnet-0c"],
    "security_groups": ["sg-0a"]}, encryption_info={"encryption_at_rest_kms_key_arn": key.arn,
    "encryption_in_transit": {"client_broker": "TLS_PLAINTEXT", "in_cluster": True}})

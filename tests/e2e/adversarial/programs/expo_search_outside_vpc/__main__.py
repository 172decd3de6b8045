"""Leak (public exposure): an OpenSearch domain without VPC options: its endpoint is on the internet."""
# expect: cloud-all-datastore-not-publicly-accessible search


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.opensearch.Domain("search", engine_version="OpenSearch_2.13", cluster_config={"instance_type": "t3.small.search"},
    ebs_options={"ebs_enabled": True, "volume_size": 10},
    encrypt_at_rest={"enabled": True, "kms_key_id": key.arn}, node_to_node_encryption={"enabled": True},
    domain_endpoint_options={"enforce_https": True, "tls_security_policy": "Policy-Min-TLS-1-2-2019-07"})

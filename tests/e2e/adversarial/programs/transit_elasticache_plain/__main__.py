"""Leak (in transit): an ElastiCache replication group that never turns transit encryption on."""
# expect: cloud-all-stream-cache-encrypted-in-transit sessions


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.elasticache.ReplicationGroup("sessions", description="sessions", node_type="cache.t3.micro", engine="redis",
    num_cache_clusters=2, at_rest_encryption_enabled=True, kms_key_id=key.arn)

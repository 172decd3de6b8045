"""Leak: an ElastiCache replication group that joins a global datastore by id; its primary and other members are
not in this program, so where the data goes cannot be shown."""
# expect: cloud-all-resource-references-in-country cache

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.elasticache.ReplicationGroup("cache", description="secondary", global_replication_group_id="ldgnf-sessions",
                                 num_cache_clusters=2, at_rest_encryption_enabled="true", kms_key_id=key.arn,
                                 transit_encryption_enabled=True)

"""Leak: a Redis replication group without at-rest encryption."""
# expect: aws-storage-datastore-encrypted-cmk cache

import pulumi_aws as aws

aws.elasticache.ReplicationGroup("cache", description="c", engine="redis", node_type="cache.t3.micro",
                                 num_cache_clusters=1, transit_encryption_enabled=True)

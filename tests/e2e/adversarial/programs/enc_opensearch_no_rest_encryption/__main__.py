"""Leak: an OpenSearch domain without encryption at rest."""
# expect: aws-storage-datastore-encrypted-cmk search

import pulumi_aws as aws

aws.opensearch.Domain("search", engine_version="OpenSearch_2.13",
                      cluster_config={"instance_type": "t3.small.search", "instance_count": 1},
                      ebs_options={"ebs_enabled": True, "volume_size": 10})

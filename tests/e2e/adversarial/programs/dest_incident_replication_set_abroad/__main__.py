"""Leak: an Incident Manager replication set whose Regions include one abroad: incident records (timelines,
chat, the affected resources' data) are replicated there."""
# expect: cloud-all-resource-references-in-country incidents

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.ssmincidents.ReplicationSet("incidents", regions=[{"name": "me-central-1", "kms_key_arn": key.arn},
                                                      {"name": "eu-west-1"}])

"""Leak: encrypted DocumentDB and Neptune clusters in me-central-1 that join global clusters this program does not
create, by plain identifier: every write is replicated to the global cluster's other regions, wherever they are."""
# expect: cloud-all-resource-references-in-country profiles
# expect: cloud-all-resource-references-in-country graph

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.docdb.Cluster("profiles", engine="docdb", storage_encrypted=True, kms_key_id=key.arn,
                  global_cluster_identifier="profiles-global", master_username="app",
                  master_password="not-a-secret-1", skip_final_snapshot=True)
aws.neptune.Cluster("graph", engine="neptune", storage_encrypted=True, kms_key_arn=key.arn,
                    global_cluster_identifier="graph-global", skip_final_snapshot=True)

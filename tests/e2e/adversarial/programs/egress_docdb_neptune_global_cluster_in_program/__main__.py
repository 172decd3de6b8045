"""Look-alike: DocumentDB and Neptune clusters join global clusters this program creates, whose only members are
in me-central-1."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
docs = aws.docdb.GlobalCluster("profiles-global", global_cluster_identifier="profiles-global", engine="docdb",
                               storage_encrypted=True)
aws.docdb.Cluster("profiles", engine="docdb", storage_encrypted=True, kms_key_id=key.arn,
                  global_cluster_identifier=docs.id, master_username="app", master_password="not-a-secret-1",
                  skip_final_snapshot=True)
graph = aws.neptune.GlobalCluster("graph-global", global_cluster_identifier="graph-global", engine="neptune",
                                  storage_encrypted=True)
aws.neptune.Cluster("graph", engine="neptune", storage_encrypted=True, kms_key_arn=key.arn,
                    global_cluster_identifier=graph.id, skip_final_snapshot=True)

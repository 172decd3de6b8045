"""Leak: an encrypted, TLS-only Aurora cluster in me-central-1 that joins a global database this program does
not create: the global cluster's other regions get every write."""
# expect: cloud-all-resource-references-in-country orders

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
pg = aws.rds.ClusterParameterGroup("pg", family="aurora-postgresql15",
                                   parameters=[{"name": "rds.force_ssl", "value": "1"}])
aws.rds.Cluster("orders", engine="aurora-postgresql", engine_version="15.4", storage_encrypted=True,
                kms_key_id=key.arn, db_cluster_parameter_group_name=pg.name, global_cluster_identifier="orders-global",
                master_username="app", manage_master_user_password=True, skip_final_snapshot=True)

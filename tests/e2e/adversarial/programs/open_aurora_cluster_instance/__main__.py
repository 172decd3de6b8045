"""Look-alike (open world): an Aurora cluster under this program's key, TLS forced, with its writer instance. The
instance keeps its data in the cluster's storage; its only key input is Performance Insights', so it is no unjudged
store."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
pg = aws.rds.ClusterParameterGroup("pg", family="aurora-postgresql15",
                                   parameters=[{"name": "rds.force_ssl", "value": "1"}])
cluster = aws.rds.Cluster("orders", engine="aurora-postgresql", engine_version="15.4", storage_encrypted=True,
                          kms_key_id=key.arn, db_cluster_parameter_group_name=pg.name, master_username="app",
                          manage_master_user_password=True, master_user_secret_kms_key_id=key.arn,
                          skip_final_snapshot=True)
aws.rds.ClusterInstance("orders-1", cluster_identifier=cluster.id, instance_class="db.r6g.large",
                        engine="aurora-postgresql", engine_version="15.4", publicly_accessible=False,
                        performance_insights_enabled=True, performance_insights_kms_key_id=key.arn)

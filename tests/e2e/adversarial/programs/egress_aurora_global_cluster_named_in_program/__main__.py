"""Look-alike: an Aurora cluster joins, by its plain identifier (the literal `global_cluster_identifier` the program
declares, not an output), a global database this program creates, whose only member is in me-central-1."""
# expect: pass

import pulumi
import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
pg = aws.rds.ClusterParameterGroup("pg", family="aurora-postgresql15",
                                   parameters=[{"name": "rds.force_ssl", "value": "1"}])
glob = aws.rds.GlobalCluster("glob", global_cluster_identifier="orders-global", engine="aurora-postgresql",
                             engine_version="15.4", storage_encrypted=True)
aws.rds.Cluster("orders", engine="aurora-postgresql", engine_version="15.4", storage_encrypted=True,
                kms_key_id=key.arn, db_cluster_parameter_group_name=pg.name,
                global_cluster_identifier="orders-global", master_username="app", manage_master_user_password=True,
                skip_final_snapshot=True, opts=pulumi.ResourceOptions(depends_on=[glob]))

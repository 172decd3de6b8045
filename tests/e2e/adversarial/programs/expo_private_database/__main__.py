"""Look-alike (public exposure): a private database, snapshots shared with one named account."""
# expect: pass


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

group = aws.rds.ParameterGroup("tls", name="mysql-require-tls", family="mysql8.0",
                               parameters=[{"name": "require_secure_transport", "value": "1"}])
aws.rds.Instance("db", engine="mysql", engine_version="8.0.39", instance_class="db.t3.micro", allocated_storage=20,
                 username="dba", manage_master_user_password=True, storage_encrypted=True, kms_key_id=key.arn,
                 publicly_accessible=False, parameter_group_name=group.name, skip_final_snapshot=True)
aws.rds.Snapshot("nightly", db_instance_identifier="db", db_snapshot_identifier="db-nightly",
                 shared_accounts=["111122223333"])

"""Leak (in transit): RDS MySQL on its default parameter group, which accepts plaintext clients."""
# expect: cloud-all-database-requires-tls db


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.rds.Instance("db", engine="mysql", engine_version="8.0.39", instance_class="db.t3.micro", allocated_storage=20,
                 username="dba", manage_master_user_password=True, storage_encrypted=True, kms_key_id=key.arn,
                 skip_final_snapshot=True)

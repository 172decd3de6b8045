"""Leak (public exposure): an encrypted database on a public address."""
# expect: cloud-all-datastore-not-publicly-accessible db


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.rds.Instance("db", engine="postgres", engine_version="16.4", instance_class="db.t3.micro", allocated_storage=20,
                 username="dba", manage_master_user_password=True, storage_encrypted=True, kms_key_id=key.arn,
                 publicly_accessible=True, skip_final_snapshot=True)

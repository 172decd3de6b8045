"""Look-alike: a MySQL instance restored from a Percona XtraBackup in a bucket this program does not create. The
bucket is where the data comes from (`s3_import`: "The bucket name where your backup is stored"), not where any
goes: data moving into the UAE is no leak."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
role = aws.iam.Role("import", assume_role_policy="""{"Version": "2012-10-17", "Statement": [{"Effect": "Allow",
    "Principal": {"Service": "rds.amazonaws.com"}, "Action": "sts:AssumeRole"}]}""")

tls = aws.rds.ParameterGroup("tls", family="mysql8.0",
                             parameters=[{"name": "require_secure_transport", "value": "1"}])

aws.rds.Instance("db", engine="mysql", engine_version="8.0", instance_class="db.t3.micro", allocated_storage=20,
                 username="dba", password="not-a-real-secret-1", storage_encrypted=True, kms_key_id=key.arn,
                 skip_final_snapshot=True, parameter_group_name=tls.name,
                 s3_import={"bucket_name": "vendor-backups-archive", "bucket_prefix": "mysql/2026-11",
                            "ingestion_role": role.arn, "source_engine": "mysql", "source_engine_version": "8.0.36"})

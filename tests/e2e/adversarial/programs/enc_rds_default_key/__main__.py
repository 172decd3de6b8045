"""Leak: an encrypted RDS instance under the AWS-managed aws/rds key."""
# expect: aws-storage-datastore-encrypted-cmk db

import pulumi_aws as aws

aws.rds.Instance("db", engine="postgres", instance_class="db.t3.micro", allocated_storage=20,
                 username="dba", password="not-a-real-secret-1", storage_encrypted=True, skip_final_snapshot=True)

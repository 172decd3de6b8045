"""Leak: RDS encrypted with a customer-managed key held in Ireland."""
# expect: aws-storage-datastore-encrypted-cmk db

import pulumi_aws as aws

aws.rds.Instance("db", engine="postgres", instance_class="db.t3.micro", allocated_storage=20,
                 username="dba", password="not-a-real-secret-1", storage_encrypted=True,
                 kms_key_id="arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
                 skip_final_snapshot=True)

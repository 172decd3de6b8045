"""Look-alike: RDS encrypted with this program's key in me-central-1."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.rds.Instance("db", engine="postgres", instance_class="db.t3.micro", allocated_storage=20,
                 username="dba", password="not-a-real-secret-1", storage_encrypted=True, kms_key_id=key.arn,
                 skip_final_snapshot=True)

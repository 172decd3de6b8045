"""Leak: an RDS read replica of a primary in Ireland (data flows both ways)."""
# expect: cloud-all-resource-references-in-country replica

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.rds.Instance("replica", instance_class="db.t3.micro", replicate_source_db=
                 "arn:aws:rds:eu-west-1:111122223333:db:primary", storage_encrypted=True, kms_key_id=key.arn,
                 skip_final_snapshot=True)

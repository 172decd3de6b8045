"""Look-alike (direction): an RDS read replica in the UAE of a primary in Ireland. Replication copies the primary's
data *into* the country and sends nothing back; `replicate_source_db` is a source, and a copy into the country is
allowed (issue 36). The primary itself is not this program's resource."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.rds.Instance("replica", instance_class="db.t3.micro", replicate_source_db=
                 "arn:aws:rds:eu-west-1:111122223333:db:primary", storage_encrypted=True, kms_key_id=key.arn,
                 skip_final_snapshot=True)

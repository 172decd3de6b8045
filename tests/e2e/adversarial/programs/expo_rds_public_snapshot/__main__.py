"""Leak (public exposure): a manual RDS snapshot shared with `all` accounts."""
# expect: cloud-all-snapshot-image-not-shared-publicly nightly


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.rds.Snapshot("nightly", db_instance_identifier="clinical-db", db_snapshot_identifier="clinical-nightly",
                 shared_accounts=["all"])

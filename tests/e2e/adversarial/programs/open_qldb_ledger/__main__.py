"""Leak (open world): a QLDB ledger holds data; no rule of the pack judges the type."""
# expect: cloud-all-datastore-judged ledger


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.qldb.Ledger("ledger", permissions_mode="STANDARD", kms_key=key.arn, deletion_protection=True)

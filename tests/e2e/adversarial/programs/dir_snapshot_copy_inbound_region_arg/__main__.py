"""Look-alike (direction): an EBS snapshot copied *into* me-central-1 from eu-central-1 (per-resource `region`
names the country): the copy is created here."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.ebs.SnapshotCopy("copy-in", source_snapshot_id="snap-0a1b2c3d4e5f67890", source_region="eu-central-1",
                     region="me-central-1", encrypted=True, kms_key_id=key.arn)

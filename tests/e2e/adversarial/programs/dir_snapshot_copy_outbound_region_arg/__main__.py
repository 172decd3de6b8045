"""Leak (direction): an EBS snapshot of a UAE volume copied out with pulumi-aws 7's per-resource `region`: the
copy is created in eu-central-1 from the me-central-1 snapshot."""
# expect: aws-all-resource-region-allowed copy-out

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
vol = aws.ebs.Volume("data", availability_zone="me-central-1a", size=20, encrypted=True, kms_key_id=key.arn)
snap = aws.ebs.Snapshot("snap", volume_id=vol.id)
aws.ebs.SnapshotCopy("copy-out", source_snapshot_id=snap.id, source_region="me-central-1", region="eu-central-1",
                     encrypted=True)

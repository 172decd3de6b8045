"""Look-alike (direction): an AMI copied from eu-west-1 into the UAE, re-encrypted under this program's key."""
# expect: pass


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.ec2.AmiCopy("base", source_ami_id="ami-0123456789abcdef0", source_ami_region="eu-west-1", encrypted=True,
                kms_key_id=key.arn)
aws.ebs.SnapshotCopy("seed", source_snapshot_id="snap-0123456789abcdef0", source_region="eu-west-1", encrypted=True,
                     kms_key_id=key.arn)

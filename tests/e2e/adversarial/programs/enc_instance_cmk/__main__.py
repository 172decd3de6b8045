"""Look-alike: an instance whose root and data volumes use this program's key."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.ec2.Instance("box", ami="ami-0123456789abcdef0", instance_type="t3.micro",
                 metadata_options={"http_tokens": "required"},
                 root_block_device={"encrypted": True, "kms_key_id": key.arn, "volume_size": 20},
                 ebs_block_devices=[{"device_name": "/dev/sdf", "encrypted": True, "kms_key_id": key.arn,
                                     "volume_size": 50}])

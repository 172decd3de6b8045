"""Leak: instance user data copies the data set to a bucket in Ireland (base64)."""
# expect: cloud-all-resource-references-in-country nodes

import base64

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

script = "#!/bin/sh\naws s3 sync /data s3://archive --region eu-west-1\n"
aws.ec2.LaunchTemplate("nodes", user_data=base64.b64encode(script.encode()).decode(),
                       metadata_options={"http_tokens": "required"},
                       block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {
                           "encrypted": "true", "kms_key_id": key.arn, "volume_size": 50}}])

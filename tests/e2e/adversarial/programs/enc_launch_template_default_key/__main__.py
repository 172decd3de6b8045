"""Leak: launch-template volumes encrypted under the AWS-managed EBS key."""
# expect: aws-storage-datastore-encrypted-cmk nodes

import pulumi_aws as aws

aws.ec2.LaunchTemplate("nodes", metadata_options={"http_tokens": "required"},
                       block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"encrypted": "true",
                                                                                    "volume_size": 50}}])

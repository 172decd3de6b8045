"""Leak: an EC2 instance whose root volume is the AMI's, unencrypted."""
# expect: aws-storage-datastore-encrypted-cmk box

import pulumi_aws as aws

aws.ec2.Instance("box", ami="ami-0123456789abcdef0", instance_type="t3.micro",
                 metadata_options={"http_tokens": "required"})

"""Look-alike (in transit): an EFS file system whose policy refuses non-TLS mounts, mounted through the EFS CSI
driver."""
# expect: pass

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

fs = aws.efs.FileSystem("shared", encrypted=True, kms_key_id=key.arn)
aws.efs.FileSystemPolicy("shared-tls", file_system_id=fs.id, policy=fs.arn.apply(lambda arn: json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": {"AWS": "*"}, "Action": "*",
    "Resource": arn, "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))

"""Leak: an EFS file system without encryption."""
# expect: aws-storage-datastore-encrypted-cmk shared

import pulumi_aws as aws

aws.efs.FileSystem("shared", performance_mode="generalPurpose")

"""Leak: a Backup vault under the AWS-managed backup key."""
# expect: aws-storage-datastore-encrypted-cmk vault

import pulumi_aws as aws

aws.backup.Vault("vault")

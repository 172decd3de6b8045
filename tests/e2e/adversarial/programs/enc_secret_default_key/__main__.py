"""Leak: a Secrets Manager secret under the default aws/secretsmanager key."""
# expect: aws-storage-datastore-encrypted-cmk token

import pulumi_aws as aws

aws.secretsmanager.Secret("token")

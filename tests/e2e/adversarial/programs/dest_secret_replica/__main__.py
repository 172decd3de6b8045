"""Leak: a Secrets Manager replica in Ireland."""
# expect: cloud-all-resource-references-in-country secret

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.secretsmanager.Secret("secret", kms_key_id=key.arn, replicas=[{"region": "eu-west-1"}])

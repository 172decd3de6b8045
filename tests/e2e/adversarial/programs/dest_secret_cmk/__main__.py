"""Look-alike: a secret under a customer-managed key, no replica."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.secretsmanager.Secret("secret", kms_key_id=key.arn)

"""Leak (direction): a backup plan copying recovery points to a vault in Frankfurt."""
# expect: aws-backup-plan-copy-region-allowed plan


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

vault = aws.backup.Vault("vault", kms_key_arn=key.arn)
aws.backup.Plan("plan", rules=[{"rule_name": "daily", "target_vault_name": vault.name, "schedule": "cron(0 1 * * ? *)",
    "copy_actions": [{"destination_vault_arn": "arn:aws:backup:eu-central-1:111122223333:backup-vault:dr"}]}])

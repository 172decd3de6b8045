"""Leak (egress): a child resource of an existing AWS Backup vault, named by the vault's name (its parent: not a
destination), whose real destination is abroad: the vault's notifications (job and recovery-point events, with
resource ARNs) go to an SNS topic in Ireland."""
# expect: cloud-all-resource-references-in-country vault-events

import pulumi_aws as aws

aws.backup.VaultNotifications("vault-events", backup_vault_name="corp.backups.mec1",
                              sns_topic_arn="arn:aws:sns:eu-west-1:111122223333:backup-events",
                              backup_vault_events=["BACKUP_JOB_COMPLETED", "RESTORE_JOB_COMPLETED"])

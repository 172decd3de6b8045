"""Look-alike (egress model): inputs that name the resource itself or its parent are not destinations. A
notification hub named `sahab.alerts.ops` (its own name, a path segment of its own ARM id) and an authorization
rule on it (the hub is its parent); a vault access policy and a vault lock on an existing AWS Backup vault
(`backupVaultName` names the vault the resource belongs to, not where data is sent). Names with periods are not
hosts."""
# expect: pass

import json

import pulumi_aws as aws
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
namespace = azure_native.notificationhubs.Namespace("push", resource_group_name=rg.name, sku={"name": "Standard"},
                                                    namespace_type="NotificationHub")
azure_native.notificationhubs.NotificationHub("hub", resource_group_name=rg.name, namespace_name=namespace.name,
                                              notification_hub_name="sahab.alerts.ops")
azure_native.notificationhubs.NotificationHubAuthorizationRule(
    "listen", resource_group_name=rg.name, namespace_name=namespace.name, notification_hub_name="sahab.alerts.ops",
    authorization_rule_name="listen", rights=["Listen"])

VAULT = "corp.backups.mec1"
aws.backup.VaultPolicy("vault-policy", backup_vault_name=VAULT, policy=json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": {"AWS": "*"},
                                            "Action": ["backup:DeleteRecoveryPoint"], "Resource": "*"}]}))
aws.backup.VaultLockConfiguration("vault-lock", backup_vault_name=VAULT, min_retention_days=30)

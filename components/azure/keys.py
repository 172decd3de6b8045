"""Customer-managed Key Vault keys: RSA, rotated on the fleet's schedule, created under the caller's parent."""

from __future__ import annotations

import pulumi
import pulumi_azure_native as azure_native
from sahab.components.azure.roles import KEY_VAULT_CRYPTO_SERVICE_ENCRYPTION_USER, role_definition_id
from sahab.components.fleet_config import KeyPolicy


def vault_key(name: str, *, vault_name: pulumi.Input[str], resource_group_name: pulumi.Input[str],
              keys: KeyPolicy, tags: dict[str, str], opts: pulumi.ResourceOptions,
              operations: tuple[str, ...] = ("wrapKey", "unwrapKey")) -> azure_native.keyvault.Key:
    """An HSM-backed RSA key that Key Vault rotates every `keys.rotation_period_days`, allowed only
    `operations` (wrap/unwrap for disk and storage encryption; AKS's KMS plugin encrypts and decrypts)."""
    return azure_native.keyvault.Key(
        name,
        vault_name=vault_name,
        resource_group_name=resource_group_name,
        properties=azure_native.keyvault.KeyPropertiesArgs(
            kty="RSA-HSM", key_size=3072, key_ops=list(operations),
            rotation_policy=azure_native.keyvault.RotationPolicyArgs(
                attributes=azure_native.keyvault.KeyRotationPolicyAttributesArgs(
                    expiry_time=f"P{keys.rotation_period_days * 2}D"),
                lifetime_actions=[azure_native.keyvault.LifetimeActionArgs(
                    action=azure_native.keyvault.ActionArgs(type="rotate"),
                    trigger=azure_native.keyvault.TriggerArgs(time_after_create=f"P{keys.rotation_period_days}D"))])),
        tags=tags,
        opts=opts,
    )


def grant_key_use(name: str, *, key: azure_native.keyvault.Key, principal_id: pulumi.Input[str],
                  opts: pulumi.ResourceOptions) -> azure_native.authorization.RoleAssignment:
    """Let one managed identity wrap and unwrap with one key (scope: the key, not the vault)."""
    return azure_native.authorization.RoleAssignment(
        name,
        scope=key.id,
        principal_id=principal_id,
        principal_type="ServicePrincipal",
        role_definition_id=role_definition_id(key.id, KEY_VAULT_CRYPTO_SERVICE_ENCRYPTION_USER),
        opts=opts,
    )

"""Azure built-in role definitions Sahab assigns, each to the narrowest scope that works. Ids as Microsoft's
"Azure built-in roles" reference lists them (the same in every tenant)."""

from __future__ import annotations

import pulumi

# Built-in role ids (the same in every tenant).
KEY_VAULT_CRYPTO_SERVICE_ENCRYPTION_USER = "e147488a-f6f5-4113-8e2d-b22465e65bf6"
KEY_VAULT_CRYPTO_USER = "12338af0-0e69-4776-bea7-57ae8d297424"  # encrypt/decrypt with a key (AKS's KMS plugin)
KEY_VAULT_CONTRIBUTOR = "f25e0fa2-a7c8-4377-a976-54943a77a395"  # manage the vault, e.g. approve a private link
AKS_RBAC_CLUSTER_ADMIN = "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"  # "Azure Kubernetes Service RBAC Cluster Admin"
NETWORK_CONTRIBUTOR = "4d97b98b-1d4f-4787-a291-c67834d212e7"
READER = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
STORAGE_BLOB_DATA_CONTRIBUTOR = "ba92f5b4-2d11-453d-a403-e96b0029c9fe"


def subscription_of(resource_id: str) -> str:
    """`/subscriptions/<id>/resourceGroups/...` -> `<id>`."""
    parts = resource_id.split("/")
    if len(parts) < 3 or parts[1].lower() != "subscriptions":
        raise ValueError(f"not an Azure resource id: {resource_id!r}")
    return parts[2]


def role_definition_id(scope: pulumi.Input[str], role: str) -> pulumi.Output[str]:
    """The subscription-qualified id of a built-in role, for a scope inside that subscription."""
    return pulumi.Output.from_input(scope).apply(
        lambda s: f"/subscriptions/{subscription_of(s)}/providers/Microsoft.Authorization/roleDefinitions/{role}")

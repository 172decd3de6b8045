"""AKS, Key Vault and managed disks: private control planes, customer-managed keys, keys that cannot vanish."""

from __future__ import annotations

from ..core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    describe,
    iso27001,
    items,
    lookup,
    rule,
)

AKS = ("azure-native:containerservice:ManagedCluster",)


@rule(id="SAHAB-AZ-020", name="azure-containerservice-managedcluster-private",
      title="AKS API servers are private",
      description="The AKS API server has no public endpoint.",
      remediation="Set `api_server_access_profile={\"enable_private_cluster\": True}`.",
      severity=Severity.MEDIUM, frameworks=(iso27001("A.8.20"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED, types=AKS)
def azure_aks_private(view: ResourceView, ctx: Context):
    private = lookup(view.props, "apiServerAccessProfile", "enablePrivateCluster")
    if private is UNKNOWN or private is True:
        return
    yield Finding(f"`apiServerAccessProfile.enablePrivateCluster` is {describe(private)}")


@rule(id="SAHAB-AZ-021", name="azure-containerservice-managedcluster-disk-encryption-set",
      title="AKS node disks use a customer-managed key",
      description="AKS OS and data disks are encrypted with a disk encryption set (customer-managed key).",
      remediation="Set `disk_encryption_set_id` to a `DiskEncryptionSet` backed by a Key Vault key.",
      severity=Severity.MEDIUM, frameworks=(iso27001("A.8.24"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED, types=AKS)
def azure_aks_cmk(view: ResourceView, ctx: Context):
    if lookup(view.props, "diskEncryptionSetID") in (MISSING, ""):
        yield Finding("`diskEncryptionSetID` is not set: disks use platform-managed keys")


@rule(id="SAHAB-AZ-022", name="azure-keyvault-vault-purge-protection",
      title="Key vaults keep deleted keys recoverable",
      description="Purge protection keeps deleted keys for the retention period, so data encrypted with them "
                  "is not lost to one mistaken or malicious deletion.",
      remediation="Set `properties.enable_purge_protection=True` (and soft delete) on the vault.",
      severity=Severity.MEDIUM, frameworks=(iso27001("A.8.24"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED,
      types=("azure-native:keyvault:Vault",))
def azure_vault_purge(view: ResourceView, ctx: Context):
    purge = lookup(view.props, "properties", "enablePurgeProtection")
    if purge is UNKNOWN or purge is True:
        return
    yield Finding(f"`properties.enablePurgeProtection` is {describe(purge)}")


@rule(id="SAHAB-AZ-023", name="azure-compute-disk-customer-managed-key",
      title="Managed disks use a customer-managed key",
      description="Managed disks are encrypted with a disk encryption set rather than platform keys.",
      remediation="Set `encryption={\"type\": \"EncryptionAtRestWithCustomerKey\", \"disk_encryption_set_id\": "
                  "des.id}`.",
      severity=Severity.LOW, frameworks=(iso27001("A.8.24"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED,
      types=("azure-native:compute:Disk",))
def azure_disk_cmk(view: ResourceView, ctx: Context):
    des = lookup(view.props, "encryption", "diskEncryptionSetId")
    if des in (MISSING, ""):
        yield Finding("`encryption.diskEncryptionSetId` is not set: the disk uses platform-managed keys")


OPEN_TO_ALL = ("0.0.0.0/0", "::/0")


@rule(id="SAHAB-AZ-027", name="azure-containerservice-managedcluster-public-endpoint-restricted",
      title="A public AKS API server is limited to known networks",
      description="An AKS API server that is not private must list the authorized IP ranges allowed to reach it; "
                  "none, or 0.0.0.0/0, opens the cluster API to the internet.",
      remediation="Set `api_server_access_profile={\"enable_private_cluster\": True}`, or list your operators' "
                  "networks in `api_server_access_profile.authorized_ip_ranges`.",
      severity=Severity.HIGH, frameworks=(iso27001("A.8.20"),),
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, types=AKS)
def azure_aks_public_endpoint(view: ResourceView, ctx: Context):
    private = lookup(view.props, "apiServerAccessProfile", "enablePrivateCluster")
    if private is UNKNOWN:
        yield from ctx.still_unknown("`apiServerAccessProfile.enablePrivateCluster`")
        return
    if private is True:
        return
    ranges = items(view.props, "apiServerAccessProfile", "authorizedIPRanges")
    if UNKNOWN in ranges:
        yield from ctx.still_unknown("`apiServerAccessProfile.authorizedIPRanges`")
        return
    if not ranges:
        yield Finding("the API server is public (`apiServerAccessProfile.enablePrivateCluster` is "
                      f"{describe(private)}) with no `authorizedIPRanges`: it is open to the internet")
    elif any(r in OPEN_TO_ALL for r in ranges):
        yield Finding(f"the public API server is open to the internet (`authorizedIPRanges` {ranges!r})")

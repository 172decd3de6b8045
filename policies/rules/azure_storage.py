"""Azure storage accounts: TLS 1.2 at least, HTTPS only, no anonymous blob access."""

from __future__ import annotations

from ..core import (
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    describe,
    iso27001,
    lookup,
    pdpl,
    rule,
)

ACCOUNT = ("azure-native:storage:StorageAccount",)
TRANSPORT = (pdpl("Art. 20 (security of processing)"), iso27001("A.8.20"), iso27001("A.5.14"))
TLS_OK = ("TLS1_2", "TLS1_3")


@rule(id="SAHAB-AZ-010", name="azure-storage-storageaccount-min-tls-1-2",
      title="Storage accounts refuse TLS below 1.2",
      description="A storage account accepts only TLS 1.2 or later.",
      remediation="Set `minimum_tls_version=\"TLS1_2\"` on `azure_native.storage.StorageAccount`.",
      severity=Severity.HIGH, frameworks=TRANSPORT,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, types=ACCOUNT)
def azure_storage_tls(view: ResourceView, ctx: Context):
    version = lookup(view.props, "minimumTlsVersion")
    if version is UNKNOWN:
        yield from ctx.still_unknown("`minimumTlsVersion`")
        return
    if version in TLS_OK:
        return
    yield Finding(f"`minimumTlsVersion` is {describe(version)}")


@rule(id="SAHAB-AZ-011", name="azure-storage-storageaccount-https-only",
      title="Storage accounts accept HTTPS only",
      description="A storage account refuses plain-HTTP requests.",
      remediation="Set `enable_https_traffic_only=True`.",
      severity=Severity.HIGH, frameworks=TRANSPORT,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, types=ACCOUNT)
def azure_storage_https(view: ResourceView, ctx: Context):
    https = lookup(view.props, "enableHttpsTrafficOnly")
    if https is UNKNOWN:
        yield from ctx.still_unknown("`enableHttpsTrafficOnly`")
        return
    if https is True:
        return
    yield Finding(f"`enableHttpsTrafficOnly` is {describe(https)}")


@rule(id="SAHAB-AZ-012", name="azure-storage-storageaccount-no-public-blob-access",
      title="Storage accounts allow no anonymous blob access",
      description="No container of the account can be made publicly readable.",
      remediation="Set `allow_blob_public_access=False`.",
      severity=Severity.HIGH, frameworks=(pdpl("Art. 20 (security of processing)"), iso27001("A.8.3")),
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, types=ACCOUNT)
def azure_storage_public(view: ResourceView, ctx: Context):
    public = lookup(view.props, "allowBlobPublicAccess")
    if public is UNKNOWN:
        yield from ctx.still_unknown("`allowBlobPublicAccess`")
        return
    if public is False:
        return
    yield Finding(f"`allowBlobPublicAccess` is {describe(public)}")

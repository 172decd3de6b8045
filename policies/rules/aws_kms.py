"""KMS: customer-managed keys rotate and are not deleted in a hurry."""

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
    lookup,
    pdpl,
    rule,
    truthy,
)

KEY_TYPES = ("aws:kms/key:Key",)
SYMMETRIC = "SYMMETRIC_DEFAULT"


@rule(id="SAHAB-AWS-014", name="aws-kms-key-rotation-enabled",
      title="KMS keys rotate automatically",
      description="Symmetric customer-managed KMS keys have automatic rotation on, limiting how much data one "
                  "key version protects.",
      remediation="Set `enable_key_rotation=True` (and `rotation_period_in_days`, 90-2560) on `aws.kms.Key`.",
      severity=Severity.MEDIUM, frameworks=(pdpl("Art. 20 (security of processing)"), iso27001("A.8.24")),
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, types=KEY_TYPES)
def aws_kms_rotation(view: ResourceView, ctx: Context):
    spec = lookup(view.props, "customerMasterKeySpec")
    if isinstance(spec, str) and spec != SYMMETRIC:
        return  # AWS cannot rotate asymmetric or HMAC keys automatically
    rotation = lookup(view.props, "enableKeyRotation")
    if rotation is UNKNOWN:
        yield from ctx.still_unknown("`enableKeyRotation`")
        return
    if truthy(rotation):
        return
    yield Finding(f"`enableKeyRotation` is {describe(rotation)}")


@rule(id="SAHAB-AWS-024", name="aws-kms-key-deletion-window-30-days",
      title="KMS keys wait 30 days before deletion",
      description="A deleted key makes every object it encrypted unreadable; the longest waiting period gives "
                  "time to notice a mistaken deletion.",
      remediation="Set `deletion_window_in_days=30` on `aws.kms.Key`.",
      severity=Severity.LOW, frameworks=(iso27001("A.8.24"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED, types=KEY_TYPES)
def aws_kms_deletion_window(view: ResourceView, ctx: Context):
    days = lookup(view.props, "deletionWindowInDays")
    if days is UNKNOWN or days is MISSING:  # unset: AWS waits 30 days
        return
    if not isinstance(days, (int, float)) or days < 30:
        yield Finding(f"`deletionWindowInDays` is {describe(days)}; use 30")

"""EBS beyond the volume: snapshots encrypted, and encryption-by-default on in every allowed region.

`sahab audit aws` needs these for what someone created by hand (a snapshot of an old volume, a region where
nobody turned the account setting on); the pack applies them to declared resources just the same."""

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
from ..residency import effective_place, place_allowed

ENCRYPTION = (pdpl("Art. 20 (security of processing)"), iso27001("A.8.24"))
SNAPSHOT = "aws:ebs/snapshot:Snapshot"
SNAPSHOT_COPY = "aws:ebs/snapshotCopy:SnapshotCopy"
VOLUME = "aws:ebs/volume:Volume"
ENCRYPTION_BY_DEFAULT = "aws:ebs/encryptionByDefault:EncryptionByDefault"


@rule(id="SAHAB-AWS-090", name="aws-ebs-snapshot-encrypted",
      title="EBS snapshots are encrypted",
      description="Every EBS snapshot is encrypted at rest. A snapshot inherits its volume's encryption, so a "
                  "snapshot that does not say is judged by the volume it names; a copy must ask for encryption.",
      remediation="Snapshot only encrypted volumes; re-encrypt an existing snapshot with `aws.ebs.SnapshotCopy("
                  "source_snapshot_id=..., encrypted=True, kms_key_id=key.arn)` and delete the plaintext one.",
      severity=Severity.HIGH, frameworks=ENCRYPTION,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack",
      covers=(SNAPSHOT, SNAPSHOT_COPY))
def aws_ebs_snapshot_encrypted(ctx: Context):
    for snapshot in ctx.of_type(SNAPSHOT, SNAPSHOT_COPY):
        encrypted = lookup(snapshot.props, "encrypted")
        if encrypted is UNKNOWN:
            yield from ctx.still_unknown(f"snapshot {snapshot.name!r}: `encrypted`", snapshot.urn)
            continue
        if truthy(encrypted):
            continue
        if encrypted is MISSING and snapshot.type == SNAPSHOT:
            volume = ctx.resolve(lookup(snapshot.props, "volumeId"),
                                 snapshot.property_dependencies.get("volumeId", ()), (VOLUME,))
            if volume is None:
                yield Finding(f"snapshot {snapshot.name!r}: `encrypted` is not set and its volume is not known, "
                              "so it cannot be shown to be encrypted", snapshot.urn)
                continue
            inherited = lookup(volume.props, "encrypted")
            if inherited is UNKNOWN:
                yield from ctx.still_unknown(f"snapshot {snapshot.name!r}: its volume's `encrypted`", snapshot.urn)
                continue
            if truthy(inherited):
                continue
            yield Finding(f"snapshot {snapshot.name!r}: its volume {volume.name!r} is not encrypted "
                          f"(`encrypted` is {describe(inherited)})", snapshot.urn)
            continue
        yield Finding(f"snapshot {snapshot.name!r}: `encrypted` is {describe(encrypted)}", snapshot.urn)


@rule(id="SAHAB-AWS-091", name="aws-ebs-encryptionbydefault-enabled",
      title="EBS encryption by default is on in every allowed region",
      description="With the account setting on, every new volume and snapshot copy in the region is encrypted, "
                  "even when whoever creates it forgets to ask.",
      remediation="Declare `aws.ebs.EncryptionByDefault(enabled=True)` (and `aws.ebs.DefaultKmsKey` with a "
                  "customer-managed key) through a provider for each allowed region, or run "
                  "`aws ec2 enable-ebs-encryption-by-default --region me-central-1`.",
      severity=Severity.MEDIUM, frameworks=ENCRYPTION,
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE,
      types=(ENCRYPTION_BY_DEFAULT,))
def aws_ebs_encryption_by_default(view: ResourceView, ctx: Context):
    place = effective_place(view, ctx)
    if isinstance(place.value, str) and not place_allowed(place, ctx):
        return  # a region the fleet may not use at all is SAHAB-AWS-001's business
    enabled = lookup(view.props, "enabled")
    if enabled is UNKNOWN:
        yield from ctx.still_unknown("`enabled`")
        return
    if enabled is MISSING or truthy(enabled):  # unset: the provider enables it
        return
    yield Finding(f"`enabled` is {describe(enabled)}")

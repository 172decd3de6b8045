"""AWS residency: where every AWS resource, provider, key and copy of data lives."""

from __future__ import annotations

from collections.abc import Iterator

from ..core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    health_data,
    iso27001,
    lookup,
    pdpl,
    rule,
)
from ..residency import (
    AWS_PACKAGES,
    Destination,
    describe_place,
    destination_problem,
    destinations,
    place_allowed,
    place_problem,
    provider_place,
)

RESIDENCY = (pdpl("Art. 22 (cross-border transfer)"), health_data("Art. 13"), iso27001("A.5.34"))


@rule(id="SAHAB-AWS-001", name="aws-all-resource-region-allowed",
      title="Every AWS resource lives in an allowed region",
      description="The effective region of every resource of the aws and aws-native packages (its own `region`, "
                  "else its provider's, else the stack's `aws:region`) must be in the residency list, so personal "
                  "and health data stays in the UAE. A region that cannot be resolved fails closed.",
      remediation="Create the resource through a provider pinned to me-central-1 (`aws.Provider(region="
                  "\"me-central-1\")`) or set `region=\"me-central-1\"` on it; remove explicit providers for other "
                  "regions.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack")
def aws_resource_region(ctx: Context):
    for view in ctx.resources:
        if view.package in AWS_PACKAGES:
            problem = place_problem(view, ctx)
            if problem:
                yield Finding(problem, view.urn)


@rule(id="SAHAB-AWS-002", name="aws-pulumi-provider-region-allowed",
      title="AWS providers are pinned to an allowed region",
      description="An AWS provider (explicit, or the default one configured by `aws:region`) outside the "
                  "residency list would place every resource it manages outside the UAE.",
      remediation="Set the provider's `region` (or the stack's `aws:region`) to me-central-1.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, types=("pulumi:providers:aws",))
def aws_provider_region(view: ResourceView, ctx: Context):
    place = provider_place(view, ctx)
    if place.value is MISSING:
        yield Finding(f"the provider region is {describe_place(place)}; the AWS SDK would fall back to the "
                      "environment of whoever runs it")
    elif not place_allowed(place, ctx):
        yield Finding(f"the provider region is {describe_place(place)}, outside the allowed regions "
                      f"({', '.join(ctx.allowed_regions)})")


KMS_REPLICA_TYPES = ("aws:kms/replicaKey:ReplicaKey", "aws:kms/replicaExternalKey:ReplicaExternalKey",
                     "aws-native:kms:ReplicaKey")


@rule(id="SAHAB-AWS-003", name="aws-kms-key-single-region",
      title="KMS keys are single-Region",
      description="A multi-Region KMS key can be replicated to any Region, and its replicas decrypt data there. "
                  "Every resource of the aws and aws-native packages with a `multiRegion` input (keys, imported "
                  "external keys, a type never seen before) must leave it off; replica keys are forbidden.",
      remediation="Set `multi_region=False` (the default) on `aws.kms.Key`/`aws.kms.ExternalKey`; do not create "
                  "`aws.kms.ReplicaKey` or `aws.kms.ReplicaExternalKey`.",
      severity=Severity.HIGH, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, packages=("aws", "aws-native"))
def aws_kms_single_region(view: ResourceView, ctx: Context):
    if view.type in KMS_REPLICA_TYPES:
        yield Finding("a KMS replica key copies a multi-Region key's material to another Region")
        return
    multi = lookup(view.props, "multiRegion")
    if multi is UNKNOWN:
        yield Finding("`multiRegion` is unknown during preview; residency fails closed")
    elif multi is True or (isinstance(multi, str) and multi.lower() == "true"):
        yield Finding("`multiRegion` is true: the key can be replicated outside the UAE")


def copies(ctx: Context, types: tuple[str, ...], block: str) -> Iterator[tuple[ResourceView, Destination]]:
    """Every destination of `types` under the input block `block` (`rules`, `replicas`, ...), with the place the
    one resolver gives it; a block that names no destination is one too (its place cannot be shown)."""
    for view in ctx.of_type(*types):
        for dest in destinations(view, ctx, include_missing=True):
            if dest.path.split(".")[0].split("[")[0] == block or f".{block}" in dest.path:
                yield view, dest


def copy_findings(ctx: Context, types: tuple[str, ...], block: str, required: tuple[str, ...]) -> Iterator[Finding]:
    """Findings for copies of data through `block`: a destination outside the allowed places, or one whose place
    cannot be shown; `required` are the leaf inputs a copy needs (a copy without one cannot be placed)."""
    for view, dest in copies(ctx, types, block):
        leaf = dest.path.rsplit(".", 1)[-1].split("[")[0]
        if dest.value is MISSING:
            if leaf in required:
                yield Finding(f"`{dest.path}` is not set: the copy's destination cannot be shown to be allowed",
                              view.urn)
            continue
        problem = destination_problem(view, ctx, dest)
        if problem:
            yield Finding(problem, view.urn)


BUCKET_TYPES = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
REPLICATION_TYPES = ("aws:s3/bucketReplicationConfig:BucketReplicationConfig",)


@rule(id="SAHAB-AWS-004", name="aws-s3-bucketreplication-destination-region-allowed",
      title="S3 replication stays in allowed regions",
      description="Every S3 replication rule's destination bucket must be a bucket of this stack in an allowed "
                  "region; a destination outside the stack cannot be shown to be in the UAE, so it fails.",
      remediation="Replicate only to a bucket created in this program in me-central-1 (or remove the rule).",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack",
      covers=(*REPLICATION_TYPES, *BUCKET_TYPES))
def aws_s3_replication_region(ctx: Context):
    yield from copy_findings(ctx, REPLICATION_TYPES, "rules", ("bucket",))
    yield from copy_findings(ctx, ("aws:s3/bucket:Bucket",), "replicationConfiguration", ("bucket",))
    yield from copy_findings(ctx, ("aws:s3/bucketV2:BucketV2",), "replicationConfigurations", ("bucket",))


@rule(id="SAHAB-AWS-005", name="aws-backup-plan-copy-region-allowed",
      title="Backup copies stay in allowed regions",
      description="A backup plan's copy action must target a vault in an allowed region; cross-Region copies "
                  "move the backed-up data out of the country.",
      remediation="Point `copy_actions[].destination_vault_arn` at a vault in me-central-1 or drop the copy.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack",
      covers=("aws:backup/plan:Plan",))
def aws_backup_copy_region(ctx: Context):
    yield from copy_findings(ctx, ("aws:backup/plan:Plan",), "copyActions", ("destinationVaultArn",))


@rule(id="SAHAB-AWS-006", name="aws-ecr-replicationconfiguration-region-allowed",
      title="Container registry replication stays in allowed regions",
      description="ECR registry replication must only target allowed regions; images often embed training "
                  "code and data samples.",
      remediation="Remove destinations outside me-central-1 from the registry replication configuration.",
      severity=Severity.HIGH, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack",
      covers=("aws:ecr/replicationConfiguration:ReplicationConfiguration",))
def aws_ecr_replication_region(ctx: Context):
    yield from copy_findings(ctx, ("aws:ecr/replicationConfiguration:ReplicationConfiguration",),
                             "replicationConfiguration", ("region",))


@rule(id="SAHAB-AWS-007", name="aws-dynamodb-table-replica-region-allowed",
      title="DynamoDB global-table replicas stay in allowed regions",
      description="Each replica of a DynamoDB global table holds a full copy of the data in its region.",
      remediation="Remove replicas outside me-central-1.",
      severity=Severity.HIGH, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, unknown=Unknown.FAILS, scope="stack",
      covers=("aws:dynamodb/table:Table",))
def aws_dynamodb_replica_region(ctx: Context):
    # A TableReplica's own region is SAHAB-AWS-001's business.
    yield from copy_findings(ctx, ("aws:dynamodb/table:Table",), "replicas", ("regionName",))

"""AWS residency: where every AWS resource, provider, key and copy of data lives."""

from __future__ import annotations

from policies.core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    aws_arn_region,
    effective_aws_region,
    health_data,
    in_list,
    iso27001,
    items,
    lookup,
    pdpl,
    rule,
)
from policies.residency import AWS_PACKAGES, place_problem

RESIDENCY = (pdpl("Art. 22 (cross-border transfer)"), health_data("Art. 13"), iso27001("A.5.34"))

def region_problem(region, allowed, what: str) -> str | None:
    """The message for a region outside the list, unknown (fail closed) or unset; None when it is allowed."""
    if in_list(region, allowed):
        return None
    if region is UNKNOWN:
        return f"{what} is unknown during preview; residency cannot be shown, so it fails closed"
    if region is MISSING:
        return f"{what} is not set anywhere (resource, provider or stack `aws:region`); the AWS SDK would " \
               "fall back to the environment of whoever runs it"
    return f"{what} {region!r} is outside the allowed regions ({', '.join(allowed)})"

@rule(id="SAHAB-AWS-001", name="aws-all-resource-region-allowed",
      title="Every AWS resource lives in an allowed region",
      description="The effective region of every resource of the aws and aws-native packages (its own `region`, "
                  "else its provider's, else the stack's `aws:region`) must be in the residency list, so personal "
                  "and health data stays in the UAE. A region that cannot be resolved fails closed.",
      remediation="Create the resource through a provider pinned to me-central-1 (`aws.Provider(region="
                  "\"me-central-1\")`) or set `region=\"me-central-1\"` on it; remove explicit providers for other "
                  "regions.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, scope="stack")
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
      enforcement=Enforcement.MANDATORY, residency=True, types=("pulumi:providers:aws",))
def aws_provider_region(view: ResourceView, ctx: Context):
    problem = region_problem(lookup(view.props, "region"), ctx.allowed_regions, "provider region")
    if problem:
        yield Finding(problem)

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
      enforcement=Enforcement.MANDATORY, residency=True, packages=("aws", "aws-native"))
def aws_kms_single_region(view: ResourceView, ctx: Context):
    if view.type in KMS_REPLICA_TYPES:
        yield Finding("a KMS replica key copies a multi-Region key's material to another Region")
        return
    multi = lookup(view.props, "multiRegion")
    if multi is UNKNOWN:
        yield Finding("`multiRegion` is unknown during preview; residency fails closed")
    elif multi is True or (isinstance(multi, str) and multi.lower() == "true"):
        yield Finding("`multiRegion` is true: the key can be replicated outside the UAE")

def destination_region(ctx: Context, source: ResourceView, prop: str, arn, types: tuple[str, ...]) -> object:
    """The region of a destination named by ARN: the ARN's own region field, else the region of the resource in
    the stack the ARN names; when the ARN is unknown in preview, the resources of `types` that the input depends
    on (the worst of them, so two destinations cannot hide each other). UNKNOWN/MISSING when nothing says."""
    region = aws_arn_region(arn)
    if isinstance(region, str):
        return region
    if isinstance(arn, str):
        target = ctx.resolve(arn, (), types)
        return effective_aws_region(target, ctx) if target is not None else MISSING
    candidates = [r for urn in source.property_dependencies.get(prop, ())
                  if (r := ctx.by_urn(urn)) is not None and r.type in types]
    regions = [effective_aws_region(r, ctx) for r in candidates]
    if not regions:
        return UNKNOWN if arn is UNKNOWN else MISSING
    return next((r for r in regions if not in_list(r, ctx.allowed_regions)), regions[0])


BUCKET_TYPES = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
REPLICATION_TYPES = ("aws:s3/bucketReplicationConfig:BucketReplicationConfig",)

@rule(id="SAHAB-AWS-004", name="aws-s3-bucketreplication-destination-region-allowed",
      title="S3 replication stays in allowed regions",
      description="Every S3 replication rule's destination bucket must be a bucket of this stack in an allowed "
                  "region; a destination outside the stack cannot be shown to be in the UAE, so it fails.",
      remediation="Replicate only to a bucket created in this program in me-central-1 (or remove the rule).",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, scope="stack")
def aws_s3_replication_region(ctx: Context):
    for config in ctx.of_type(*REPLICATION_TYPES):
        for i, rule_ in enumerate(items(config.props, "rules")):
            dest = lookup(rule_, "destination", "bucket")
            region = destination_region(ctx, config, "rules", dest, BUCKET_TYPES)
            if region is MISSING and isinstance(dest, str):
                yield Finding(f"rules[{i}] replicates to {dest}, a bucket outside this stack whose region cannot "
                              "be shown to be allowed", config.urn)
                continue
            problem = region_problem(region, ctx.allowed_regions, f"rules[{i}] destination region")
            if problem:
                yield Finding(problem, config.urn)
    for bucket in ctx.of_type(*BUCKET_TYPES):
        # The legacy inline replication block of the bucket resource.
        for i, rule_ in enumerate(items(bucket.props, "replicationConfiguration", "rules")):
            dest = lookup(rule_, "destination", "bucket")
            region = destination_region(ctx, bucket, "replicationConfiguration", dest, BUCKET_TYPES)
            problem = region_problem(region, ctx.allowed_regions,
                                     f"replicationConfiguration.rules[{i}] destination region")
            if problem:
                yield Finding(problem, bucket.urn)

@rule(id="SAHAB-AWS-005", name="aws-backup-plan-copy-region-allowed",
      title="Backup copies stay in allowed regions",
      description="A backup plan's copy action must target a vault in an allowed region; cross-Region copies "
                  "move the backed-up data out of the country.",
      remediation="Point `copy_actions[].destination_vault_arn` at a vault in me-central-1 or drop the copy.",
      severity=Severity.CRITICAL, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True, scope="stack")
def aws_backup_copy_region(ctx: Context):
    for plan in ctx.of_type("aws:backup/plan:Plan"):
        for i, rule_ in enumerate(items(plan.props, "rules")):
            for j, copy in enumerate(items(rule_, "copyActions")):
                arn = lookup(copy, "destinationVaultArn")
                region = destination_region(ctx, plan, "rules", arn, ("aws:backup/vault:Vault",))
                problem = region_problem(region, ctx.allowed_regions,
                                         f"rules[{i}].copyActions[{j}] destination vault region")
                if problem:
                    yield Finding(problem, plan.urn)

@rule(id="SAHAB-AWS-006", name="aws-ecr-replicationconfiguration-region-allowed",
      title="Container registry replication stays in allowed regions",
      description="ECR registry replication must only target allowed regions; images often embed training "
                  "code and data samples.",
      remediation="Remove destinations outside me-central-1 from the registry replication configuration.",
      severity=Severity.HIGH, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True,
      types=("aws:ecr/replicationConfiguration:ReplicationConfiguration",))
def aws_ecr_replication_region(view: ResourceView, ctx: Context):
    rules_ = items(view.props, "replicationConfiguration", "rules")
    for i, rule_ in enumerate(rules_):
        for j, dest in enumerate(items(rule_, "destinations")):
            region = lookup(dest, "region")
            problem = region_problem(region, ctx.allowed_regions, f"rules[{i}].destinations[{j}] region")
            if problem:
                yield Finding(problem)

@rule(id="SAHAB-AWS-007", name="aws-dynamodb-table-replica-region-allowed",
      title="DynamoDB global-table replicas stay in allowed regions",
      description="Each replica of a DynamoDB global table holds a full copy of the data in its region.",
      remediation="Remove replicas outside me-central-1.",
      severity=Severity.HIGH, frameworks=RESIDENCY,
      enforcement=Enforcement.MANDATORY, residency=True,
      types=("aws:dynamodb/table:Table", "aws:dynamodb/tableReplica:TableReplica"))
def aws_dynamodb_replica_region(view: ResourceView, ctx: Context):
    if view.type == "aws:dynamodb/tableReplica:TableReplica":
        return  # its own region is SAHAB-AWS-001's business
    for i, replica in enumerate(items(view.props, "replicas")):
        problem = region_problem(lookup(replica, "regionName"), ctx.allowed_regions, f"replicas[{i}] region")
        if problem:
            yield Finding(problem)


"""S3: every bucket encrypted with a customer-managed KMS key, reachable over TLS only, private and versioned.

Since pulumi-aws 5, a bucket's encryption, policy, public-access block and versioning are separate resources
that name the bucket. These are stack rules: each bucket is judged together with the resources that point
at it, so encryption that lives in a separate resource is no false positive."""

from __future__ import annotations

import json

from ..core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    iso27001,
    items,
    lookup,
    pdpl,
    rule,
    truthy,
)

BUCKET_TYPES = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
# S3 Express One Zone: blocks public access and has no PublicAccessBlock, but takes the same default encryption
# (SSE-S3 unless a BucketServerSideEncryptionConfiguration sets SSE-KMS); training data is what it is for.
DIRECTORY_BUCKET_TYPES = ("aws:s3/directoryBucket:DirectoryBucket",)
ENCRYPTED_BUCKET_TYPES = (*BUCKET_TYPES, *DIRECTORY_BUCKET_TYPES)
SSE_TYPES = ("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
             "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2")
POLICY_TYPES = ("aws:s3/bucketPolicy:BucketPolicy",)
PUBLIC_ACCESS_TYPES = ("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",)
VERSIONING_TYPES = ("aws:s3/bucketVersioning:BucketVersioning", "aws:s3/bucketVersioningV2:BucketVersioningV2")
KMS_ALGORITHMS = ("aws:kms", "aws:kms:dsse")
AWS_MANAGED_S3_KEY = "alias/aws/s3"

ENCRYPTION = (pdpl("Art. 20 (security of processing)"), iso27001("A.8.24"))
TRANSPORT = (pdpl("Art. 20 (security of processing)"), iso27001("A.8.20"), iso27001("A.5.14"))


def _sse_problem(default, ctx: Context) -> str | None:
    """Judge one `applyServerSideEncryptionByDefault` block; an unknown value is handled as the rule declares."""
    if default is UNKNOWN:
        return _unknown(ctx, "`applyServerSideEncryptionByDefault`")
    algorithm = lookup(default, "sseAlgorithm")
    if algorithm is MISSING:
        return "no `sseAlgorithm`"
    if algorithm is UNKNOWN:
        return _unknown(ctx, "`sseAlgorithm`")
    if algorithm not in KMS_ALGORITHMS:
        return f"`sseAlgorithm` is {algorithm!r}, not SSE-KMS"
    key = lookup(default, "kmsMasterKeyId")
    if key is UNKNOWN:
        return _unknown(ctx, "`kmsMasterKeyId`")
    if key is MISSING:
        return "no `kmsMasterKeyId`: S3 would use the AWS-managed aws/s3 key, not a customer-managed key"
    if isinstance(key, str) and key.endswith(AWS_MANAGED_S3_KEY):
        return "`kmsMasterKeyId` is the AWS-managed aws/s3 key, not a customer-managed key"
    return None


def _unknown(ctx: Context, what: str) -> str | None:
    return next((f.message for f in ctx.still_unknown(what)), None)


def attached_to(bucket: ResourceView, ctx: Context, *types: str) -> list[ResourceView]:
    """Resources of `types` whose `bucket` input names this bucket and only this one: by value when the value is
    known, else by a property dependency on exactly one bucket. A value computed from several buckets (one
    configuration shared through an Output) configures only the one it names, so it is credited to none."""
    found = []
    for r in ctx.referencing(bucket, "bucket", *types):
        value = lookup(r.props, "bucket")
        if isinstance(value, str) and (value == bucket.urn or value in bucket.identities):
            found.append(r)
            continue
        if isinstance(value, str) and ctx.resolve(value, (), ENCRYPTED_BUCKET_TYPES) is not None:
            continue  # it names another bucket of the stack
        sources = [u for u in r.property_dependencies.get("bucket", ())
                   if (b := ctx.by_urn(u)) is not None and b.type in ENCRYPTED_BUCKET_TYPES]
        if sources == [bucket.urn]:
            found.append(r)
    return found


def _encryption_verdict(bucket: ResourceView, ctx: Context) -> str | None:
    """None when the bucket is SSE-KMS with a CMK (inline or through a separate resource), else why not."""
    separate = attached_to(bucket, ctx, *SSE_TYPES)
    blocks = [(f"{r.name}", lookup(rule_, "applyServerSideEncryptionByDefault"))
              for r in separate for rule_ in items(r.props, "rules")]
    inline = lookup(bucket.props, "serverSideEncryptionConfiguration", "rule", "applyServerSideEncryptionByDefault")
    if inline is not MISSING:
        blocks.append(("inline serverSideEncryptionConfiguration", inline))
    if not blocks:
        if separate:
            return f"its encryption configuration {separate[0].name!r} has no default-encryption rule"
        return "no server-side encryption configuration names it"
    problems = [f"{where}: {p}" for where, default in blocks if (p := _sse_problem(default, ctx))]
    return "; ".join(problems) or None


@rule(id="SAHAB-AWS-010", name="aws-s3-bucket-sse-kms-cmk",
      title="S3 buckets are encrypted with SSE-KMS under a customer-managed key",
      description="Every S3 bucket, directory buckets (S3 Express One Zone) included, has default encryption "
                  "SSE-KMS with a customer-managed KMS key, set inline or by a separate "
                  "BucketServerSideEncryptionConfiguration that names the bucket.",
      remediation="Add `aws.s3.BucketServerSideEncryptionConfiguration(bucket=bucket.id, rules=[{"
                  "\"apply_server_side_encryption_by_default\": {\"sse_algorithm\": \"aws:kms\", "
                  "\"kms_master_key_id\": key.arn}, \"bucket_key_enabled\": True}])` with a key you create.",
      severity=Severity.HIGH, frameworks=ENCRYPTION, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", covers=(*ENCRYPTED_BUCKET_TYPES, *SSE_TYPES))
def aws_s3_sse_kms(ctx: Context):
    for bucket in ctx.of_type(*ENCRYPTED_BUCKET_TYPES):
        problem = _encryption_verdict(bucket, ctx)
        if problem:
            yield Finding(f"bucket {bucket.name!r}: {problem}", bucket.urn)


def _as_list(value) -> list:
    value = lookup(value) if value is not None else MISSING
    if value is MISSING:
        return []
    if isinstance(value, str) or value is UNKNOWN:
        return [value]
    return items(value)


def _covers_everything(statement) -> bool | None:
    """Whether a Deny statement covers every S3 action on the bucket and its objects (None: unknown)."""
    if lookup(statement, "NotAction") is not MISSING or lookup(statement, "NotResource") is not MISSING:
        return False
    actions = _as_list(lookup(statement, "Action"))
    resources = _as_list(lookup(statement, "Resource"))
    principal = lookup(statement, "Principal")
    if UNKNOWN in actions or UNKNOWN in resources or principal is UNKNOWN:
        return None
    if not any(isinstance(a, str) and a.lower() in ("*", "s3:*") for a in actions):
        return False
    if principal not in ("*",) and "*" not in _as_list(lookup(principal, "AWS")):
        return False
    strings = [r for r in resources if isinstance(r, str)]
    return "*" in strings or (any(r.endswith("/*") for r in strings) and any(not r.endswith("*") for r in strings))


def _condition_values(condition, operators: tuple[str, ...], key: str) -> list | None:
    """The values a Condition tests `key` against under any of `operators`; keys match case-insensitively, as
    AWS matches them. None when the condition is unknown."""
    if condition is UNKNOWN:
        return None
    found: list = []
    if not hasattr(condition, "keys"):
        return found
    for operator in list(condition):
        if operator.lower() not in {o.lower() for o in operators}:
            continue
        tests = lookup(condition, operator)
        if tests is UNKNOWN:
            return None
        if not hasattr(tests, "keys"):
            continue
        for name in list(tests):
            if name.lower() == key.lower():
                value = lookup(tests, name)
                if value is UNKNOWN:
                    return None
                found.extend(_as_list(value))
    return found


def _denies_insecure_transport(document) -> bool | None:
    """True if the policy has a Deny of every action on the bucket and its objects when `aws:SecureTransport`
    is false; None when the document is unknown."""
    if document is UNKNOWN:
        return None
    if isinstance(document, str):
        try:
            document = json.loads(document)
        except ValueError:
            return False
    for st in items(document, "Statement") if not isinstance(lookup(document, "Statement"), dict) \
            else [lookup(document, "Statement")]:
        if st is UNKNOWN:
            return None
        if lookup(st, "Effect") != "Deny":
            continue
        values = _condition_values(lookup(st, "Condition"), ("Bool", "BoolIfExists"), "aws:SecureTransport")
        if values is None:
            return None
        if any(str(v).lower() == "false" for v in values):
            covers = _covers_everything(st)
            if covers is None or covers:
                return covers
    return False


@rule(id="SAHAB-AWS-011", name="aws-s3-bucket-deny-insecure-transport",
      title="S3 buckets deny requests without TLS",
      description="Every S3 bucket has a bucket policy with a Deny statement for requests where "
                  "`aws:SecureTransport` is false, so data never crosses the network in clear text.",
      remediation="Attach an `aws.s3.BucketPolicy` with a statement {Effect: Deny, Principal: *, Action: s3:*, "
                  "Resource: [bucket ARN, bucket ARN/*], Condition: {Bool: {aws:SecureTransport: false}}}.",
      severity=Severity.HIGH, frameworks=TRANSPORT, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", covers=BUCKET_TYPES)
def aws_s3_tls_only(ctx: Context):
    for bucket in ctx.of_type(*BUCKET_TYPES):
        policies_ = attached_to(bucket, ctx, *POLICY_TYPES)
        documents = [lookup(p.props, "policy") for p in policies_]
        inline = lookup(bucket.props, "policy")
        if inline is not MISSING:
            documents.append(inline)
        verdicts = [_denies_insecure_transport(d) for d in documents]
        if any(verdicts):
            continue
        if any(v is None for v in verdicts):
            yield from ctx.still_unknown(f"bucket {bucket.name!r}: its bucket policy", bucket.urn)
            continue
        why = "no bucket policy names it" if not documents else "its bucket policy has no Deny of every " \
            "action (s3:*) on the bucket and its objects when aws:SecureTransport is false"
        yield Finding(f"bucket {bucket.name!r}: {why}", bucket.urn)


@rule(id="SAHAB-AWS-020", name="aws-s3-bucket-public-access-blocked",
      title="S3 buckets block all public access",
      description="Every S3 bucket has a public access block with all four settings on.",
      remediation="Add `aws.s3.BucketPublicAccessBlock(bucket=bucket.id, block_public_acls=True, "
                  "block_public_policy=True, ignore_public_acls=True, restrict_public_buckets=True)`.",
      severity=Severity.HIGH, frameworks=(pdpl("Art. 20 (security of processing)"), iso27001("A.8.3")),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED, scope="stack",
      covers=BUCKET_TYPES)
def aws_s3_public_access(ctx: Context):
    settings = ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
    for bucket in ctx.of_type(*BUCKET_TYPES):
        blocks = ctx.referencing(bucket, "bucket", *PUBLIC_ACCESS_TYPES)
        if not blocks:
            yield Finding(f"bucket {bucket.name!r}: no public access block names it", bucket.urn)
            continue
        off = [s for s in settings if not any(
            (v := lookup(b.props, s)) is UNKNOWN or truthy(v) for b in blocks)]
        if off:
            yield Finding(f"bucket {bucket.name!r}: {', '.join(off)} not enabled", bucket.urn)


@rule(id="SAHAB-AWS-021", name="aws-s3-bucket-versioning-enabled",
      title="S3 buckets keep object versions",
      description="Every S3 bucket has versioning enabled, so an overwrite or a deletion can be undone.",
      remediation="Add `aws.s3.BucketVersioning(bucket=bucket.id, versioning_configuration={\"status\": "
                  "\"Enabled\"})`.",
      severity=Severity.MEDIUM, frameworks=(iso27001("A.8.13"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED, scope="stack",
      covers=BUCKET_TYPES)
def aws_s3_versioning(ctx: Context):
    for bucket in ctx.of_type(*BUCKET_TYPES):
        configs = ctx.referencing(bucket, "bucket", *VERSIONING_TYPES)
        statuses = [lookup(c.props, "versioningConfiguration", "status") for c in configs]
        inline = lookup(bucket.props, "versioning", "enabled")
        if any(s is UNKNOWN or s == "Enabled" for s in statuses) or inline is UNKNOWN or truthy(inline):
            continue
        yield Finding(f"bucket {bucket.name!r}: versioning is not enabled", bucket.urn)

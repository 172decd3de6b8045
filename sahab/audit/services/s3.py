"""S3: one global ListBuckets, then one task per bucket for its region and configuration.

The per-bucket reads (location when ListBuckets does not give it, encryption, public access block, policy,
replication, versioning) are inherent to S3's API: no call returns them for many buckets at once. Each goes to
a client in the bucket's own region, as S3 requires. A "not found" answer means "not configured"; any other
error leaves the bucket unverified and is reported, never guessed.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from sahab.audit import adapters
from sahab.audit.tasks import Outcome, ScanContext, Task

SERVICE = "s3"
NOT_CONFIGURED = {
    "GetBucketEncryption": {"ServerSideEncryptionConfigurationNotFoundError"},
    "GetPublicAccessBlock": {"NoSuchPublicAccessBlockConfiguration"},
    "GetBucketPolicy": {"NoSuchBucketPolicy"},
    "GetBucketReplication": {"ReplicationConfigurationNotFoundError"},
}


def tasks(ctx: ScanContext) -> list[Task]:
    return [Task(SERVICE, ctx.home_region, "list buckets", partial(_list_buckets, ctx))]


def _list_buckets(ctx: ScanContext, clients: Any) -> Outcome:
    s3 = clients.client(SERVICE, ctx.home_region)
    outcome = Outcome()
    # No MaxBuckets: S3 then returns up to 10,000 buckets a page and a ContinuationToken beyond.
    for page in s3.get_paginator("list_buckets").paginate():
        for bucket in page.get("Buckets", []):
            name = bucket["Name"]
            region = bucket.get("BucketRegion")  # present in current S3 answers; absent from older endpoints
            if region is not None and not _in_scope(ctx, region):
                continue
            outcome.followups.append(
                Task(SERVICE, region or ctx.home_region, f"bucket {name}", partial(_bucket, ctx, name, region),
                     resource=name)
            )
    return outcome


def _in_scope(ctx: ScanContext, region: str) -> bool:
    """ListBuckets is global: unless the user limited the scan, a bucket counts wherever it lives, even in a
    region the account's region list did not show."""
    return region in ctx.regions or not ctx.restricted


def region_of_location(constraint: str | None) -> str:
    """GetBucketLocation's answer: none means us-east-1, and the legacy `EU` means eu-west-1."""
    if not constraint:
        return "us-east-1"
    return "eu-west-1" if constraint == "EU" else constraint


def _bucket(ctx: ScanContext, name: str, region: str | None, clients: Any) -> Outcome:
    if region is None:
        located = clients.client(SERVICE, ctx.home_region).get_bucket_location(Bucket=name)
        region = region_of_location(located.get("LocationConstraint"))
        if not _in_scope(ctx, region):
            return Outcome()
    s3 = clients.client(SERVICE, region)
    try:
        encryption = _optional(s3.get_bucket_encryption, "GetBucketEncryption", name)
        pab = _optional(s3.get_public_access_block, "GetPublicAccessBlock", name)
        policy = _optional(s3.get_bucket_policy, "GetBucketPolicy", name)
        replication = _optional(s3.get_bucket_replication, "GetBucketReplication", name)
        versioning = s3.get_bucket_versioning(Bucket=name)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "NoSuchBucket":
            return Outcome()  # deleted while we scanned: nothing left to audit
        raise
    views = adapters.s3_bucket(
        name, region,
        encryption=encryption.get("ServerSideEncryptionConfiguration") if encryption else None,
        public_access_block=pab.get("PublicAccessBlockConfiguration") if pab else None,
        policy=policy.get("Policy") if policy else None,
        replication=replication.get("ReplicationConfiguration") if replication else None,
        versioning=versioning,
        partition=ctx.partition,
    )
    return Outcome(resources=views)


def _optional(call: Any, operation: str, bucket: str) -> dict[str, Any] | None:
    try:
        return call(Bucket=bucket)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in NOT_CONFIGURED[operation]:
            return None
        raise

"""KMS, per region: customer-managed keys with their rotation, multi-Region flag and aliases.

AWS-managed keys (`aws/s3`, `aws/ebs`...) are AWS's to rotate and cannot be multi-Region, so they are not
audited as keys; keys pending deletion are on their way out and skipped. DescribeKey and
GetKeyRotationStatus are per key by the API's design (two calls per key, whatever the fleet size).
"""

from __future__ import annotations

from collections import defaultdict
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from sahab.audit import adapters
from sahab.audit.scan_types import LiveResource
from sahab.audit.tasks import Outcome, ScanContext, Task, scan_error

SERVICE = "kms"
PAGE_SIZES = {"ListKeys": 1000, "ListAliases": 100}
SKIPPED_STATES = {"PendingDeletion", "PendingReplicaDeletion"}


def tasks(ctx: ScanContext) -> list[Task]:
    return [Task(SERVICE, region, "keys", partial(_keys, ctx, region)) for region in sorted(ctx.regions)]


def _keys(ctx: ScanContext, region: str, clients: Any) -> Outcome:
    kms = clients.client(SERVICE, region)
    aliases: dict[str, list[str]] = defaultdict(list)
    alias_pages = kms.get_paginator("list_aliases").paginate(
        PaginationConfig={"PageSize": ctx.page_size("ListAliases", PAGE_SIZES["ListAliases"])})
    for page in alias_pages:
        for alias in page.get("Aliases", []):
            if alias.get("TargetKeyId"):
                aliases[alias["TargetKeyId"]].append(alias["AliasName"])
    outcome = Outcome()
    key_pages = kms.get_paginator("list_keys").paginate(
        PaginationConfig={"PageSize": ctx.page_size("ListKeys", PAGE_SIZES["ListKeys"])})
    for page in key_pages:
        for key in page.get("Keys", []):
            # A key policy can deny the auditor one key: report that key, keep auditing the others.
            try:
                view = _key(kms, key["KeyId"], aliases, region)
            except ClientError as exc:
                outcome.errors.append(scan_error(SERVICE, region, exc, key.get("KeyArn", key["KeyId"])))
                continue
            if view is not None:
                outcome.resources.append(view)
    return outcome


def _key(kms: Any, key_id: str, aliases: dict[str, list[str]], region: str) -> LiveResource | None:
    metadata = kms.describe_key(KeyId=key_id)["KeyMetadata"]
    names = aliases.get(key_id, [])
    # `alias/aws/` is reserved for AWS-managed keys; checked as well as KeyManager for endpoints that blur the two.
    aws_managed = metadata.get("KeyManager") != "CUSTOMER" or any(n.startswith("alias/aws/") for n in names)
    if aws_managed or metadata.get("KeyState") in SKIPPED_STATES:
        return None
    rotation = None
    # Rotation exists only for symmetric keys whose material KMS generated.
    symmetric = metadata.get("KeySpec", "SYMMETRIC_DEFAULT") == "SYMMETRIC_DEFAULT"
    if symmetric and metadata.get("Origin", "AWS_KMS") == "AWS_KMS":
        rotation = kms.get_key_rotation_status(KeyId=key_id)["KeyRotationEnabled"]
    return adapters.kms_key(metadata, rotation, sorted(names), region)

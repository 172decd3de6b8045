"""EBS, per region: volumes, the account's own snapshots, and the encryption-by-default setting.

Three tasks per region, so that a denied DescribeSnapshots does not cost the volumes. Listings use the
API's largest page size: the number of calls grows with pages, never with a call per resource.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from sahab.audit import adapters
from sahab.audit.tasks import Outcome, ScanContext, Task

SERVICE = "ec2"
PAGE_SIZES = {"DescribeVolumes": 500, "DescribeSnapshots": 1000}


def tasks(ctx: ScanContext) -> list[Task]:
    out = []
    for region in sorted(ctx.regions):
        out.append(Task(SERVICE, region, "volumes", partial(_volumes, ctx, region)))
        out.append(Task(SERVICE, region, "snapshots", partial(_snapshots, ctx, region)))
        # The account setting matters where the fleet may run; elsewhere any resource is already a finding.
        if region in ctx.allowed_regions:
            out.append(Task(SERVICE, region, "encryption by default", partial(_encryption_by_default, ctx, region)))
    return out


def _volumes(ctx: ScanContext, region: str, clients: Any) -> Outcome:
    ec2 = clients.client(SERVICE, region)
    size = ctx.page_size("DescribeVolumes", PAGE_SIZES["DescribeVolumes"])
    found = []
    for page in ec2.get_paginator("describe_volumes").paginate(PaginationConfig={"PageSize": size}):
        found.extend(adapters.ebs_volume(v, region, ctx.account_id, ctx.partition) for v in page.get("Volumes", []))
    return Outcome(resources=found)


def _snapshots(ctx: ScanContext, region: str, clients: Any) -> Outcome:
    ec2 = clients.client(SERVICE, region)
    size = ctx.page_size("DescribeSnapshots", PAGE_SIZES["DescribeSnapshots"])
    found = []
    # Only snapshots this account owns: public and shared ones are somebody else's to audit.
    pages = ec2.get_paginator("describe_snapshots").paginate(OwnerIds=["self"], PaginationConfig={"PageSize": size})
    for page in pages:
        found.extend(adapters.ebs_snapshot(s, region, ctx.partition) for s in page.get("Snapshots", []))
    return Outcome(resources=found)


def _encryption_by_default(ctx: ScanContext, region: str, clients: Any) -> Outcome:
    enabled = clients.client(SERVICE, region).get_ebs_encryption_by_default()["EbsEncryptionByDefault"]
    return Outcome(resources=[adapters.ebs_encryption_by_default(enabled, region, ctx.account_id)])

"""EKS, per region: every cluster and its secrets-encryption configuration."""

from __future__ import annotations

from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from sahab.audit import adapters
from sahab.audit.tasks import Outcome, ScanContext, Task, scan_error

SERVICE = "eks"
PAGE_SIZES = {"ListClusters": 100}


def tasks(ctx: ScanContext) -> list[Task]:
    return [Task(SERVICE, region, "clusters", partial(_clusters, ctx, region)) for region in sorted(ctx.regions)]


def _clusters(ctx: ScanContext, region: str, clients: Any) -> Outcome:
    eks = clients.client(SERVICE, region)
    size = ctx.page_size("ListClusters", PAGE_SIZES["ListClusters"])
    outcome = Outcome()
    for page in eks.get_paginator("list_clusters").paginate(PaginationConfig={"PageSize": size}):
        for name in page.get("clusters", []):
            try:
                cluster = eks.describe_cluster(name=name)["cluster"]
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
                    continue  # deleted while we scanned
                outcome.errors.append(scan_error(SERVICE, region, exc, name))
                continue
            outcome.resources.append(adapters.eks_cluster(cluster, region))
    return outcome

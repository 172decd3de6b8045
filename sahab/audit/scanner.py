"""The scan: every enabled region x every audited service, on one thread pool, errors kept per task.

Work is a set of `Task`s (a service in a region, or one bucket). A task that fails after botocore's retries
(throttling, access denied, a timeout) becomes a `ScanError` naming the service, region, call and missing
permission; every other task still runs, so one denied service never hides the rest of the account.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime

from botocore.exceptions import BotoCoreError, ClientError

from sahab.audit.clients import MAX_ATTEMPTS, ClientFactory
from sahab.audit.scan_types import ScanError, ScanResult
from sahab.audit.services import ebs, eks, kms, s3
from sahab.audit.tasks import Outcome, ScanContext, Task, scan_error
from sahab.policies.core import DEFAULT_ALLOWED_REGIONS

SERVICES = {"s3": s3, "ec2": ebs, "kms": kms, "eks": eks}


@dataclass
class ScanOptions:
    regions: list[str] | None = None  # None: every region enabled for the account
    allowed_regions: tuple[str, ...] = DEFAULT_ALLOWED_REGIONS
    profile: str | None = None
    endpoint_url: str | None = None
    services: tuple[str, ...] = tuple(SERVICES)
    max_workers: int = 16
    max_attempts: int = MAX_ATTEMPTS  # botocore attempts per call, the first included
    time_budget_s: float | None = None  # the whole scan; what is not done by then is reported unverified
    page_sizes: dict[str, int] = field(default_factory=dict)


Progress = Callable[[int, int], None]  # (tasks done, tasks known so far)


def scan(options: ScanOptions, clients: ClientFactory | None = None, progress: Progress | None = None) -> ScanResult:
    clients = clients or ClientFactory(
        profile=options.profile, endpoint_url=options.endpoint_url, max_attempts=options.max_attempts,
        max_pool_connections=options.max_workers * 2,
    )
    started = datetime.now(UTC)
    deadline = time.monotonic() + options.time_budget_s if options.time_budget_s else None
    identity = clients.identity()
    regions = sorted(set(options.regions)) if options.regions else clients.enabled_regions()
    ctx = ScanContext(
        account_id=identity["account"], partition=clients.partition, regions=frozenset(regions),
        allowed_regions=frozenset(options.allowed_regions),
        home_region=clients.home_region, restricted=bool(options.regions), page_sizes=dict(options.page_sizes),
    )
    result = ScanResult(account_id=identity["account"], caller_arn=identity["arn"], partition=ctx.partition,
                        regions=regions, started=started, limited=ctx.restricted)
    initial = [task for name in options.services for task in SERVICES[name].tasks(ctx)]
    for outcome in run_tasks(initial, clients, options.max_workers, progress, deadline):
        result.resources.extend(outcome.resources)
        result.errors.extend(outcome.errors)
    result.resources.sort(key=lambda r: (r.type, r.region, r.id))
    result.errors.sort(key=lambda e: (e.service, e.region, e.operation, e.resource or ""))
    result.api_calls = clients.counter.snapshot()
    result.finished = datetime.now(UTC)
    return result


def run_tasks(tasks: Iterable[Task], clients: ClientFactory, max_workers: int,
              progress: Progress | None = None, deadline: float | None = None) -> Iterable[Outcome]:
    """Run tasks and the follow-up tasks they discover, yielding each outcome as it completes. At the deadline
    (time.monotonic()) every task not finished yields a ScanError instead: that part of the account is
    unverified, and the scan ends without waiting for it."""
    pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="sahab-audit")
    try:
        pending: dict[Future[Outcome], Task] = {pool.submit(_guarded, t, clients): t for t in tasks}
        known, done_count = len(pending), 0
        while pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            done, _ = wait(pending, timeout=left, return_when=FIRST_COMPLETED)
            if not done:  # out of time
                for future, task in pending.items():
                    future.cancel()
                    yield Outcome(errors=[ScanError(task.service, task.region, task.label, "TimeBudgetExceeded",
                                                    "not finished within the scan's time budget (--timeout)",
                                                    None, task.resource)])
                return
            for future in done:
                pending.pop(future)
                outcome = future.result()
                for follow in outcome.followups:
                    pending[pool.submit(_guarded, follow, clients)] = follow
                known += len(outcome.followups)
                done_count += 1
                if progress:
                    progress(done_count, known)
                yield outcome
    finally:
        # Calls still in flight end at their own read timeout; nothing waits for them here.
        pool.shutdown(wait=False, cancel_futures=True)


def _guarded(task: Task, clients: ClientFactory) -> Outcome:
    """Run one task; an AWS failure becomes a ScanError instead of ending the scan."""
    try:
        return task.run(clients)
    except (ClientError, BotoCoreError) as exc:
        return Outcome(errors=[scan_error(task.service, task.region, exc, task.resource)])

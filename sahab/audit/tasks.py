"""A unit of scan work: one service in one region (or one bucket), run on the scanner's thread pool."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sahab.audit.scan_types import LiveResource, ScanError


@dataclass
class Outcome:
    resources: list[LiveResource] = field(default_factory=list)
    errors: list[ScanError] = field(default_factory=list)
    followups: list[Task] = field(default_factory=list)  # more work found while listing (e.g. one per bucket)


@dataclass(frozen=True)
class Task:
    service: str
    region: str
    label: str
    run: Callable[..., Outcome]  # run(clients) -> Outcome
    resource: str | None = None  # the one resource this task is about, if any (named in its errors)


@dataclass(frozen=True)
class ScanContext:
    """What every service scanner needs to know about the scan as a whole."""

    account_id: str
    partition: str
    regions: frozenset[str]  # the regions this scan covers
    allowed_regions: frozenset[str]  # where the fleet may run: account settings are only read there
    home_region: str
    restricted: bool = False  # the user chose the regions; otherwise S3 (global) reports buckets anywhere
    page_sizes: dict[str, int] = field(default_factory=dict)  # overrides of PAGE_SIZES, by operation

    def page_size(self, operation: str, default: int) -> int:
        return self.page_sizes.get(operation, default)


def scan_error(service: str, region: str, exc: Exception, resource: str | None = None) -> ScanError:
    """A failed call as a ScanError, naming the IAM action an access-denied answer says is missing."""
    from botocore.exceptions import ClientError

    from sahab.audit.permissions import iam_action

    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        operation = exc.operation_name
        message = " ".join(str(error.get("Message", "")).split())
        code, message = _readable(str(error.get("Code", "ClientError")), message)
        return ScanError(service, region, operation, code, message, iam_action(service, operation), resource)
    operation = getattr(exc, "operation_name", None) or "request"
    return ScanError(service, region, operation, type(exc).__name__, " ".join(str(exc).split()),
                     iam_action(service, operation), resource)


def _readable(code: str, message: str) -> tuple[str, str]:
    """An error body botocore could not parse leaves the HTTP status as the code and the raw body as the
    message (proxies, and moto's IAM simulation for JSON APIs, answer in XML). Recover the real code."""
    if not code.isdigit():
        return code, message
    found_code = re.search(r"<Code>([^<]+)</Code>", message)
    found_message = re.search(r"<Message>([^<]*)</Message>", message)
    if found_code:
        return found_code.group(1), found_message.group(1) if found_message else message
    return ("AccessDenied" if code == "403" else f"HTTP{code}"), message

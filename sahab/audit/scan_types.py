"""What a scan produces: live resources in the policy rules' shape, and the errors met on the way."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class LiveResource:
    """One deployed resource seen as the policy pack sees a declared one.

    `type` is the Pulumi type token (`aws:s3/bucket:Bucket`), `props` the engine-shaped (camelCase)
    properties the pulumi-aws provider would hold for it, `region` where it really lives.
    """

    type: str
    name: str
    id: str
    region: str
    props: dict[str, Any]
    identities: frozenset[str] = frozenset()  # other names it goes by (ARN, id, bucket name) for correlation

    @property
    def subject(self) -> str:
        """What a finding names: the resource itself, or for an S3 bucket's configuration, the bucket."""
        return self.id.split("#", 1)[0]


@dataclass(frozen=True)
class ScanError:
    """A call that failed after retries: the scan went on, but this part of the account is unverified."""

    service: str
    region: str
    operation: str
    code: str
    message: str
    permission: str | None = None
    resource: str | None = None

    def line(self) -> str:
        where = f"{self.service} {self.region}"
        what = f"{self.operation} on {self.resource}" if self.resource else self.operation
        need = f" (needs {self.permission})" if self.permission and _is_denied(self.code) else ""
        return f"{where}: {what} failed: {self.code}{need}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "service": self.service, "region": self.region, "operation": self.operation, "code": self.code,
            "message": self.message, "permission": self.permission, "resource": self.resource,
            "missingPermission": self.permission if _is_denied(self.code) else None,
        }


def _is_denied(code: str) -> bool:
    return code in {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "AuthorizationError"}


@dataclass
class ScanResult:
    """Everything one scan saw, with enough context to write evidence of it."""

    account_id: str
    caller_arn: str
    partition: str
    regions: list[str]
    started: datetime
    limited: bool = False  # the user chose the regions, instead of every region enabled for the account
    finished: datetime | None = None
    resources: list[LiveResource] = field(default_factory=list)
    errors: list[ScanError] = field(default_factory=list)
    api_calls: dict[str, int] = field(default_factory=dict)

    @property
    def total_api_calls(self) -> int:
        return sum(self.api_calls.values())

"""boto3 clients for the audit: one session, one cached client per (service, region), adaptive retries.

boto3 clients are thread-safe but sessions are not, so clients are created under a lock and shared by the
scanner's worker threads. Every API call is counted through botocore's `before-call` event, which fires
once per logical call (retries are not double-counted).
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    EndpointConnectionError,
    HTTPClientError,
    NoCredentialsError,
    PartialCredentialsError,
    ProfileNotFound,
)
from botocore.exceptions import ConnectionError as BotoConnectionError

from sahab.audit.permissions import iam_action
from sahab.errors import SahabError

HOME_REGION = "us-east-1"  # where account-wide calls (STS, S3 ListBuckets, DescribeRegions) go by default

# An interactive tool: AWS answers a read call in well under a second, so an endpoint that has not connected
# in 5 s or answered in 10 s is not going to; three attempts with backoff still ride out throttling and a
# dropped connection. The worst case for one call is about half a minute (benchmarks/audit_unresponsive.py),
# and `sahab audit --timeout` caps the whole scan.
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 10.0
MAX_ATTEMPTS = 3


class CredentialsError(SahabError):
    """Credentials missing, rejected, or lacking a permission the scan cannot start without. Exit 2."""


class ApiCallCounter:
    """Counts API calls per `service.Operation`; registered on the session before any client exists."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: Counter[str] = Counter()

    def __call__(self, model: Any, **_: Any) -> None:
        key = f"{model.service_model.service_name}.{model.name}"
        with self._lock:
            self.calls[key] += 1

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(sorted(self.calls.items()))


class ClientFactory:
    def __init__(
        self,
        *,
        profile: str | None = None,
        endpoint_url: str | None = None,
        home_region: str | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        max_pool_connections: int = 32,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        read_timeout: float = READ_TIMEOUT_S,
    ) -> None:
        try:
            self.session = boto3.Session(profile_name=profile)
        except ProfileNotFound as exc:
            raise CredentialsError(f"AWS profile {profile!r} not found in the AWS config files") from exc
        self.endpoint_url = endpoint_url
        self.home_region = home_region or self.session.region_name or HOME_REGION
        self.counter = ApiCallCounter()
        self.session.events.register("before-call", self.counter)
        # Adaptive mode adds client-side rate limiting on top of standard retries: throttled calls back off
        # instead of hammering the API while dozens of region x service workers run at once.
        self.config = Config(
            retries={"mode": "adaptive", "total_max_attempts": max_attempts},
            max_pool_connections=max_pool_connections,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            user_agent_extra="sahab-audit",
            # A custom endpoint (moto server on loopback) has no per-bucket DNS names.
            s3={"addressing_style": "path"} if endpoint_url else None,
        )
        self.max_attempts = max_attempts
        self._clients: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def client(self, service: str, region: str | None = None) -> Any:
        key = (service, region or self.home_region)
        with self._lock:
            if key not in self._clients:
                self._clients[key] = self.session.client(
                    service, region_name=key[1], endpoint_url=self.endpoint_url, config=self.config
                )
            return self._clients[key]

    @property
    def partition(self) -> str:
        return self.session.get_partition_for_region(self.home_region)

    def identity(self) -> dict[str, str]:
        """Who the scan runs as; every credential problem becomes one clear exit-2 line."""
        try:
            found = self.client("sts").get_caller_identity()
        except NoCredentialsError as exc:
            raise CredentialsError(
                "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or --profile"
            ) from exc
        except PartialCredentialsError as exc:
            raise CredentialsError(f"incomplete AWS credentials: {exc}") from exc
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise CredentialsError(
                f"AWS rejected the credentials on sts:GetCallerIdentity ({error.get('Code', 'error')}): "
                f"{error.get('Message', exc)}"
            ) from exc
        except EndpointConnectionError as exc:
            raise CredentialsError(f"cannot reach the AWS endpoint: {exc}") from exc
        except (HTTPClientError, BotoConnectionError) as exc:  # no answer in time, or the connection dropped
            raise CredentialsError(
                f"the AWS endpoint {self.endpoint_url or 'of ' + self.home_region} did not answer "
                f"sts:GetCallerIdentity ({self.max_attempts} attempts, {self.config.read_timeout:.3g} s each): {exc}"
            ) from exc
        return {"account": found["Account"], "arn": found["Arn"]}

    def enabled_regions(self) -> list[str]:
        """Every region enabled for this account, in this partition."""
        ec2 = self.client("ec2")
        try:
            # Without AllRegions, EC2 lists only regions the account may use; the filter says so explicitly.
            found = ec2.describe_regions(
                Filters=[{"Name": "opt-in-status", "Values": ["opt-in-not-required", "opted-in"]}]
            )["Regions"]
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = error.get("Code", "error")
            raise CredentialsError(
                f"cannot list the account's regions: {code} on ec2:DescribeRegions "
                f"(the auditor needs {iam_action('ec2', 'DescribeRegions')})"
            ) from exc
        except BotoCoreError as exc:
            raise CredentialsError(f"cannot list the account's regions: {exc}") from exc
        partition = self.partition
        names = {r["RegionName"] for r in found}
        return sorted(n for n in names if self.session.get_partition_for_region(n) == partition)

"""Node validation from a system DaemonSet: benchmark this node, record the verdict on its own Node object.

`python -m workloads node-validate --node NAME` runs in the `sahab-system` namespace
(components/kubernetes/node_validator.py), never in a tenant's pod. It runs the workload's `bench` on the node it
is scheduled to, then writes the verdict as labels and annotations whose keys all start with `sahab.io/validation`
(the only keys the cluster's admission policy lets its service account change, and only on the node the pod runs
on):

- label `sahab.io/validation`: passed | failed | inconclusive | error | expired (training needs `passed`);
- label `sahab.io/validation-class`: the hardware class the node was judged as (e.g. h100-sxm, cpu-avx2);
- annotations `sahab.io/validation-reason` (why it did not pass), `sahab.io/validation-failed-probes`
  (the probes below their floors), `sahab.io/validation-time` (RFC 3339, UTC) and
  `sahab.io/validation-fingerprint` (what the node was when judged: boot, kernel, kubelet, runtime, driver,
  devices).

A verdict is due again when the node changes (its fingerprint: a reboot, a new kernel or driver, a GPU that
fell off the bus), when a pass is older than the re-validation interval, or when a failed, inconclusive or
errored verdict is older than the retry delay. `--watch` never benchmarks: it only turns a pass that is due
into `expired`, so the node takes no new training and the benchmarking DaemonSet (which runs only on nodes
that have not passed) comes back to it.

Standard library only: the API server is reached with urllib, the pod's service-account token and CA.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

PREFIX = "sahab.io/validation"  # every key the validator writes starts with this
LABEL = PREFIX
CLASS_LABEL = f"{PREFIX}-class"
REASON = f"{PREFIX}-reason"
FAILED_PROBES = f"{PREFIX}-failed-probes"
TIME = f"{PREFIX}-time"
FINGERPRINT = f"{PREFIX}-fingerprint"

PASSED, FAILED, INCONCLUSIVE, ERROR, EXPIRED = "passed", "failed", "inconclusive", "error", "expired"
VERDICTS = (PASSED, FAILED, INCONCLUSIVE, ERROR, EXPIRED)
BENCH_VERDICTS = {0: PASSED, 1: FAILED, 2: ERROR, 3: INCONCLUSIVE}  # `sahab bench` exit code -> label value

SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
API_TIMEOUT = 30.0
REASON_LIMIT = 1000  # characters of reason kept on the node (annotations share 256 KiB per object)

# What the node is, for "did it change since it was judged": identity of the boot and the software stack,
# the devices it offers, and the NVIDIA driver and GPUs GPU feature discovery reports.
_NODE_INFO = ("bootID", "kernelVersion", "osImage", "containerRuntimeVersion", "kubeletVersion")
_CAPACITY = ("cpu", "memory", "nvidia.com/gpu")
_DEVICE_LABELS = ("nvidia.com/cuda.driver-version.full", "nvidia.com/cuda.driver.major",
                  "nvidia.com/cuda.driver.minor", "nvidia.com/cuda.driver.rev", "nvidia.com/gpu.product",
                  "nvidia.com/gpu.count", "nvidia.com/mig.config")


class APIError(Exception):
    """The API server refused or could not be reached."""


# ---- pure: what the node is, whether a verdict is due, the patch that records one ------------------------
def fingerprint(node: dict) -> str:
    """A short digest of what the node was when it was judged (changes on reboot, upgrades, lost devices)."""
    status = node.get("status") or {}
    info, capacity = status.get("nodeInfo") or {}, status.get("capacity") or {}
    labels = (node.get("metadata") or {}).get("labels") or {}
    facts = {"nodeInfo": {k: info.get(k) for k in _NODE_INFO}, "capacity": {k: capacity.get(k) for k in _CAPACITY},
             "labels": {k: labels.get(k) for k in _DEVICE_LABELS}}
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:16]


def _parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def rfc3339(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def due(node: dict, now: datetime, interval: timedelta, retry_after: timedelta) -> str | None:
    """Why the node's verdict must be (re)established now; None while the recorded one stands."""
    meta = node.get("metadata") or {}
    labels, annotations = meta.get("labels") or {}, meta.get("annotations") or {}
    verdict = labels.get(LABEL)
    if verdict is None:
        return "not validated yet"
    if verdict not in VERDICTS:
        return f"unknown verdict {verdict!r}"
    if verdict == EXPIRED:
        return f"expired: {annotations.get(REASON) or 'due for re-validation'}"
    judged = _parse_time(annotations.get(TIME))
    if judged is None:
        return "no validation time recorded"
    if annotations.get(FINGERPRINT) != fingerprint(node):
        return "the node changed since it was judged (reboot, kernel, kubelet, runtime, driver or devices)"
    age = now - judged
    if verdict == PASSED and age >= interval:
        return f"passed {_span(age)} ago; re-validated every {_span(interval)}"
    if verdict != PASSED and age >= retry_after:
        return f"{verdict} {_span(age)} ago; retried every {_span(retry_after)}"
    return None


def _span(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def label_value(text: str) -> str | None:
    """A Kubernetes label value from free text (63 characters, alphanumerics and -_. inside), or None."""
    value = re.sub(r"[^A-Za-z0-9_.-]", "-", text)[:63].strip("-_.")
    return value or None


@dataclass(frozen=True)
class BenchOutcome:
    """What one `sahab bench` run said: its exit code, its JSON result (when it printed one) and its errors."""

    exit_code: int
    result: dict | None
    stderr: str = ""

    @property
    def verdict(self) -> str:
        return BENCH_VERDICTS.get(self.exit_code, ERROR)

    def failed_probes(self) -> list[str]:
        probes = (self.result or {}).get("probes") or {}
        return sorted(name for name, p in probes.items() if isinstance(p, dict) and p.get("passed") is False)

    def reason(self) -> str:
        """Why the node did not pass, in the bench's own words (empty when it passed)."""
        if self.verdict == PASSED:
            return ""
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        said = [line for line in lines if line.startswith(("failed:", "inconclusive:", "error:"))]
        if not said and self.result and self.result.get("reason"):
            said = [str(self.result["reason"])]
        if not said:
            said = lines[-1:] or [f"sahab bench exited {self.exit_code}"]
        return "; ".join(said)[:REASON_LIMIT]


def verdict_patch(outcome: BenchOutcome, node: dict, now: datetime) -> dict:
    """The JSON merge patch that records one bench run on the node (null removes a stale key)."""
    hardware = (outcome.result or {}).get("hardware_class")
    failed = outcome.failed_probes()
    return {"metadata": {
        "labels": {LABEL: outcome.verdict, CLASS_LABEL: label_value(str(hardware)) if hardware else None},
        "annotations": {TIME: rfc3339(now), FINGERPRINT: fingerprint(node), REASON: outcome.reason() or None,
                        FAILED_PROBES: ",".join(failed) or None}}}


def expiry_patch(reason: str, node: dict, now: datetime) -> dict:
    """Turn a pass that is due into `expired`: no new training lands here until it is judged again."""
    return {"metadata": {"labels": {LABEL: EXPIRED}, "annotations": {
        REASON: reason[:REASON_LIMIT], TIME: rfc3339(now), FINGERPRINT: fingerprint(node)}}}


# ---- the API server ----------------------------------------------------------------------------------------
class NodeAPI:
    """GET and merge-PATCH one Node. In a pod: the in-cluster endpoint with the service-account token (read
    afresh for every request: the kubelet rotates it) and CA. `server` may name another endpoint, e.g. the
    `kubectl proxy` on http://127.0.0.1:8001."""

    def __init__(self, server: str, token_file: Path | None = None, ca_file: Path | None = None):
        self.server = server.rstrip("/")
        self.token_file = token_file
        self.context = ssl.create_default_context(cafile=str(ca_file)) if ca_file else None

    @classmethod
    def in_cluster(cls) -> NodeAPI:
        host, port = os.environ.get("KUBERNETES_SERVICE_HOST"), os.environ.get("KUBERNETES_SERVICE_PORT", "443")
        if not host or not (SERVICE_ACCOUNT / "token").is_file():
            raise APIError("not in a pod with a service-account token (KUBERNETES_SERVICE_HOST and "
                           f"{SERVICE_ACCOUNT}/token); outside a cluster name --api-server")
        if ":" in host:
            host = f"[{host}]"
        return cls(f"https://{host}:{port}", SERVICE_ACCOUNT / "token", SERVICE_ACCOUNT / "ca.crt")

    def _request(self, method: str, node: str, body: dict | None = None) -> dict:
        headers = {"Accept": "application/json"}
        if self.token_file is not None:
            headers["Authorization"] = f"Bearer {self.token_file.read_text().strip()}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/merge-patch+json"
        request = urllib.request.Request(f"{self.server}/api/v1/nodes/{node}", data=data, method=method,
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=API_TIMEOUT) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            raise APIError(f"{method} node {node}: HTTP {exc.code}: {_status_message(exc)}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise APIError(f"{method} node {node}: {getattr(exc, 'reason', exc)}") from None

    def get(self, node: str) -> dict:
        return self._request("GET", node)

    def patch(self, node: str, patch: dict) -> dict:
        return self._request("PATCH", node, patch)


def _status_message(exc: urllib.error.HTTPError) -> str:
    """The API server's Status message (an admission policy's refusal names itself there)."""
    try:
        return str(json.loads(exc.read()).get("message") or exc.reason)
    except (ValueError, AttributeError, OSError):
        return str(exc.reason)


# ---- benchmarking ------------------------------------------------------------------------------------------
def run_bench(time_budget: float, baseline: Path | None = None) -> BenchOutcome:
    """`sahab bench` in its own process (its memory and threads go when it ends), JSON result on stdout.
    The bench keeps its own hard budget; the timeout here only catches a process that hangs past it."""
    command = [sys.executable, "-m", "workloads", "bench", "--format", "json", "--time-budget", f"{time_budget:g}"]
    if baseline is not None:
        command += ["--baseline", str(baseline)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=2 * time_budget + 60, check=False)
    except subprocess.TimeoutExpired:
        return BenchOutcome(3, None, f"inconclusive: sahab bench did not finish within {2 * time_budget + 60:g} s")
    result = None
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            try:
                result = json.loads(line)
            except ValueError:
                continue
            break
    return BenchOutcome(done.returncode, result, done.stderr)


# ---- the loop ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Settings:
    node: str
    interval: timedelta = timedelta(hours=24)
    retry_after: timedelta = timedelta(minutes=15)
    poll: float = 60.0
    time_budget: float = 60.0
    baseline: Path | None = None
    watch: bool = False


def log(message: str) -> None:
    print(f"{rfc3339(datetime.now(UTC))} {message}", file=sys.stderr, flush=True)


def round_once(api: NodeAPI, settings: Settings, bench: Callable[[], BenchOutcome] | None = None,
               clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> BenchOutcome | None:
    """One look at the node: when its verdict is due, establish it (or, watching, expire the pass).
    Returns the bench run it made, if any. Raises APIError when the API server refuses."""
    node = api.get(settings.node)
    reason = due(node, clock(), settings.interval, settings.retry_after)
    if reason is None:
        return None
    if settings.watch:
        if (node.get("metadata", {}).get("labels") or {}).get(LABEL) == PASSED:
            api.patch(settings.node, expiry_patch(reason, node, clock()))
            log(f"node {settings.node}: pass expired ({reason})")
        return None
    log(f"node {settings.node}: validating ({reason})")
    outcome = (bench or (lambda: run_bench(settings.time_budget, settings.baseline)))()
    node = api.get(settings.node)  # the fingerprint as it is now, after the run
    api.patch(settings.node, verdict_patch(outcome, node, clock()))
    why = f": {outcome.reason()}" if outcome.reason() else ""
    log(f"node {settings.node}: {outcome.verdict}{why}")
    return outcome


def serve(api: NodeAPI, settings: Settings) -> None:
    """Look at the node every `poll` seconds, forever (the DaemonSet's pod ends when its node no longer
    needs it). An API error is logged and retried at the next look, never fatal."""
    while True:
        try:
            round_once(api, settings)
        except APIError as exc:
            log(f"error: {exc}")
        time.sleep(settings.poll)

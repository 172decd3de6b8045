"""Loopback stand-ins for the cloud APIs moto does not serve, built from their documented response schemas.

- Service Quotas (JSON 1.1 over HTTP POST, `X-Amz-Target: ServiceQuotasV20190624.<Operation>`): GetServiceQuota
  and GetAWSDefaultServiceQuota answer `{"Quota": {ServiceCode, ServiceName, QuotaArn, QuotaCode, QuotaName, Value,
  Unit, Adjustable, GlobalQuota, UsageMetric}}` (Service Quotas API Reference, "GetServiceQuota"); an unknown code
  is a 400 `NoSuchResourceException`. moto's Service Quotas covers VPC only.
- Azure Resource Manager: `GET /subscriptions/{id}/providers/Microsoft.Compute/skus?api-version=2021-07-01&$filter=
  location eq '<loc>'` answers `{"value": [ResourceSku]}` (REST reference "Resource Skus - List": resourceType,
  name, tier, size, family, locations, locationInfo[{location, zones, zoneDetails}], capabilities[{name, value}],
  restrictions[{type, values, restrictionInfo{locations, zones}, reasonCode}]); `GET .../locations/<loc>/usages`
  answers `{"value": [Usage]}` ("Usage - List": unit, currentValue, limit, name{value, localizedValue}). Both want
  a bearer token.

The values they hold are each test's scenario, not facts about any account.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _Server:
    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.fake = self  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-amz-json-1.1" if "X-Amz-Target" in self.headers
                         else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class ServiceQuotas(_Server):
    """EC2 quotas by code: {code: (name, value)} applied; `defaults` the same for GetAWSDefaultServiceQuota."""

    def __init__(self, applied: dict[str, tuple[str, float]], defaults: dict[str, tuple[str, float]] | None = None,
                 region: str = "me-central-1"):
        self.applied, self.defaults, self.region = applied, defaults or applied, region

        class Handler(_Handler):
            def do_POST(self):
                fake = self.server.fake
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                operation = self.headers.get("X-Amz-Target", "").rpartition(".")[2]
                fake.requests.append(f"{operation} {body.get('QuotaCode')}")
                table = {"GetServiceQuota": fake.applied, "GetAWSDefaultServiceQuota": fake.defaults}.get(operation)
                code = body.get("QuotaCode")
                if table is None or body.get("ServiceCode") != "ec2" or code not in table:
                    return self.answer(400, {"__type": "NoSuchResourceException",
                                             "message": f"The request failed because the specified quota {code} "
                                                        "does not exist."})
                name, value = table[code]
                account = "" if operation == "GetAWSDefaultServiceQuota" else "111122223333"
                self.answer(200, {"Quota": {
                    "ServiceCode": "ec2", "ServiceName": "Amazon Elastic Compute Cloud (Amazon EC2)",
                    "QuotaArn": f"arn:aws:servicequotas:{fake.region}:{account}:ec2/{code}", "QuotaCode": code,
                    "QuotaName": name, "Value": value, "Unit": "None", "Adjustable": True, "GlobalQuota": False,
                    "UsageMetric": {"MetricNamespace": "AWS/Usage", "MetricName": "ResourceCount",
                                    "MetricDimensions": {"Resource": "vCPU", "Service": "EC2", "Type": "Resource"},
                                    "MetricStatisticRecommendation": "Maximum"}}})

        super().__init__(Handler)


class ResourceManager(_Server):
    """Azure Resource SKUs and compute usages per location for one subscription."""

    TOKEN = "test-token"

    def __init__(self, subscription: str, skus: dict[str, list[dict]], usages: dict[str, list[dict]]):
        self.subscription, self.skus, self.usages = subscription, skus, usages

        class Handler(_Handler):
            def do_GET(self):
                fake = self.server.fake
                fake.requests.append(self.path)
                if self.headers.get("Authorization") != f"Bearer {ResourceManager.TOKEN}":
                    return self.answer(401, {"error": {"code": "AuthenticationFailed",
                                                       "message": "Authentication failed."}})
                url = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(url.query)
                prefix = f"/subscriptions/{fake.subscription}/providers/Microsoft.Compute"
                if url.path == f"{prefix}/skus":
                    location = query.get("$filter", [""])[0].partition("'")[2].rstrip("'").lower()
                    return self.answer(200, {"value": fake.skus.get(location, [])})
                if url.path.startswith(f"{prefix}/locations/") and url.path.endswith("/usages"):
                    location = url.path.split("/")[-2]
                    return self.answer(200, {"value": fake.usages.get(location, [])})
                self.answer(404, {"error": {"code": "NotFound", "message": self.path}})

        super().__init__(Handler)


def sku(name: str, family: str, vcpus: int, location: str, zones: list[str],
        restrictions: list[dict] | None = None) -> dict:
    """One ResourceSku of a VM size, in the documented shape."""
    return {"resourceType": "virtualMachines", "name": name, "tier": "Standard", "size": name.removeprefix("Standard_"),
            "family": family, "locations": [location],
            "locationInfo": [{"location": location, "zones": zones, "zoneDetails": []}],
            "capabilities": [{"name": "vCPUs", "value": str(vcpus)}], "restrictions": restrictions or []}


def usage(name: str, localized: str, current: int, limit: int) -> dict:
    return {"unit": "Count", "currentValue": current, "limit": limit,
            "name": {"value": name, "localizedValue": localized}}


def fake_az(folder: Path, subscription: str) -> str:
    """An `az` on PATH that answers `az account get-access-token` as the Azure CLI does (JSON)."""
    tool = folder / "az"
    answer = json.dumps({"accessToken": ResourceManager.TOKEN, "expiresOn": "2030-01-01 00:00:00.000000",
                         "subscription": subscription, "tenant": "9b1e4d2a-7c3f-4e8b-a5d6-0f1e2c3b4a59",
                         "tokenType": "Bearer"})
    tool.write_text(f"#!/bin/sh\ncat <<'EOF'\n{answer}\nEOF\n")
    tool.chmod(0o755)
    return str(folder)

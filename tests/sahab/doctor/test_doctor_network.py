"""`sahab doctor`'s network area: live tunnel status (EC2 through moto and botocore's own response model; Azure
through a loopback stand-in of ARM speaking the documented schema), and whether this machine reaches each
resolver, registry and API server, probed on loopback only."""

from __future__ import annotations

import http.server
import json
import os
import socket
import threading
from pathlib import Path

import boto3
import pytest
import yaml
from botocore.stub import Stubber
from sahab.components.fleet_config import parse_fleet

from sahab.doctor import FAIL, OK, SKIP, DoctorContext, run_checks
from sahab.doctor import network as area

ROOT = Path(__file__).resolve().parents[3]
SUBSCRIPTION = "00000000-0000-0000-0000-000000000001"


def stack_fleet(stack: str, **changes):
    fleet = yaml.safe_load((ROOT / f"stacks/Pulumi.{stack}.yaml").read_text())["config"]["sahab:fleet"]
    return parse_fleet({**fleet, **changes})


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    """Test credentials only; no cloud, no proxy, no `az`; any TCP connection to a non-loopback address fails."""
    for name in list(os.environ):
        if name.startswith(("AWS_", "AZURE_", "ARM_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    real = socket.create_connection

    def loopback_only(address, *args, **kwargs):
        assert str(address[0]).startswith("127."), f"a probe left loopback: {address}"
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", loopback_only)


def context(fleet, **endpoints) -> DoctorContext:
    return DoctorContext(project_dir=ROOT, stack="t", fleet=fleet, config={}, endpoints=endpoints, timeout=2.0)


# ---- AWS tunnels ----------------------------------------------------------------------------------------------------
def _vpn(ec2, fleet: str, site: str) -> str:
    cgw = ec2.create_customer_gateway(Type="ipsec.1", PublicIp="198.51.100.10", BgpAsn=65010)["CustomerGateway"]
    vgw = ec2.create_vpn_gateway(Type="ipsec.1")["VpnGateway"]
    return ec2.create_vpn_connection(
        Type="ipsec.1", CustomerGatewayId=cgw["CustomerGatewayId"], VpnGatewayId=vgw["VpnGatewayId"],
        TagSpecifications=[{"ResourceType": "vpn-connection", "Tags": [
            {"Key": "sahab.io/fleet", "Value": fleet}, {"Key": "sahab.io/site", "Value": site}]}],
    )["VpnConnection"]["VpnConnectionId"]


def test_aws_tunnels_through_moto_before_and_after_the_first_up():
    from moto import mock_aws

    fleet = stack_fleet("prod")
    with mock_aws():
        before = list(area.aws_tunnels(context(fleet)))
        assert [(c.status, c.detail.split(":")[0]) for c in before] == [
            (SKIP, "no VPN connection of fleet sahab yet")]
        ec2 = boto3.client("ec2", region_name="me-central-1")
        _vpn(ec2, "sahab", "auh-dc1")
        _vpn(ec2, "another-fleet", "auh-dc1")  # not this fleet's: never reported
        after = {c.name: c for c in area.aws_tunnels(context(fleet))}
    assert set(after) == {"AWS VPN auh-dc1", "AWS VPN dxb-dc1"}
    # moto gives no tunnel telemetry: not known to be up.
    assert after["AWS VPN auh-dc1"].status == FAIL and "no telemetry yet" in after["AWS VPN auh-dc1"].detail
    assert after["AWS VPN dxb-dc1"].status == FAIL and "no VPN connection for site dxb-dc1" in \
        after["AWS VPN dxb-dc1"].detail


def _described(*statuses: str) -> dict:
    """A DescribeVpnConnections answer, checked by botocore's own EC2 model (the Stubber refuses a wrong shape)."""
    return {"VpnConnections": [{
        "VpnConnectionId": "vpn-0123456789abcdef0", "State": "available", "Type": "ipsec.1",
        "CustomerGatewayId": "cgw-0123456789abcdef0", "Category": "VPN",
        "Tags": [{"Key": "sahab.io/fleet", "Value": "sahab"}, {"Key": "sahab.io/site", "Value": "auh-dc1"}],
        "VgwTelemetry": [{"OutsideIpAddress": f"203.0.113.{i}", "Status": status, "AcceptedRouteCount": 1,
                          "StatusMessage": "" if status == "UP" else "IPSEC IS DOWN"}
                         for i, status in enumerate(statuses, start=1)]}]}


@pytest.mark.parametrize(("statuses", "expected"), [(("UP", "DOWN"), OK), (("DOWN", "UP"), OK),
                                                    (("DOWN", "DOWN"), FAIL)])
def test_a_connection_is_up_when_one_of_its_tunnels_is(monkeypatch, statuses, expected):
    client = boto3.client("ec2", region_name="me-central-1")
    stubber = Stubber(client)
    stubber.add_response("describe_vpn_connections", _described(*statuses),
                         {"Filters": [{"Name": "tag:sahab.io/fleet", "Values": ["sahab"]}]})
    monkeypatch.setattr(area, "_ec2", lambda ctx, region, service="ec2": client)
    with stubber:
        found = [c for c in area.aws_tunnels(context(stack_fleet("prod"))) if c.name == "AWS VPN auh-dc1"]
    assert [c.status for c in found] == [expected]
    assert "203.0.113.1" in found[0].detail and "203.0.113.2" in found[0].detail
    if expected == FAIL:
        assert "IPSEC IS DOWN" in found[0].detail and "swanctl" in found[0].remedy


# ---- Azure tunnels --------------------------------------------------------------------------------------------------
class Arm(http.server.BaseHTTPRequestHandler):
    """ARM on loopback, answering as the REST reference documents: Resources - List (a `value` array of ids, names,
    types and tags) and Virtual Network Gateway Connections - Get (`properties.connectionStatus`: Unknown,
    Connecting, Connected, NotConnected; bytes transferred each way)."""

    connections: dict[str, tuple[dict, str]] = {}
    seen: list[str] = []

    def do_GET(self):
        self.seen.append(self.path)
        if self.headers.get("Authorization") != "Bearer test-token" or "api-version=" not in self.path:
            return self._send(401, {"error": {"code": "AuthenticationFailed"}})
        path = self.path.split("?")[0]
        if path == f"/subscriptions/{SUBSCRIPTION}/resources":
            return self._send(200, {"value": [
                {"id": cid, "name": cid.rsplit("/", 1)[1], "type": "Microsoft.Network/connections", "tags": tags}
                for cid, (tags, _) in self.connections.items()]})
        if path in self.connections:
            tags, status = self.connections[path]
            return self._send(200, {"id": path, "name": path.rsplit("/", 1)[1], "location": "uaenorth",
                                    "type": "Microsoft.Network/connections", "tags": tags, "properties": {
                                        "connectionType": "IPsec", "connectionStatus": status,
                                        "provisioningState": "Succeeded", "ingressBytesTransferred": 1024,
                                        "egressBytesTransferred": 2048}})
        return self._send(404, {"error": {"code": "ResourceNotFound"}})

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture
def arm(monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Arm)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("AZURE_ACCESS_TOKEN", "test-token")
    Arm.seen = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_azure_connections_report_their_status(arm):
    prefix = f"/subscriptions/{SUBSCRIPTION}/resourceGroups/sahab-uaenorth-rg/providers/Microsoft.Network/connections"
    Arm.connections = {
        f"{prefix}/auh": ({"sahab.io/fleet": "sahab", "sahab.io/site": "auh-dc1"}, "Connected"),
        f"{prefix}/dxb": ({"sahab.io/fleet": "sahab", "sahab.io/site": "dxb-dc1"}, "NotConnected"),
        f"{prefix}/other": ({"sahab.io/fleet": "another"}, "Connected"),
    }
    fleet = stack_fleet("prod", clouds={"aws": {"region": "me-central-1"},
                                        "azure": {"location": "uaenorth", "subscription_id": SUBSCRIPTION}})
    found = {c.name: c for c in area.azure_tunnels(context(fleet, azure=arm))}
    assert set(found) == {"Azure IPsec auh-dc1", "Azure IPsec dxb-dc1"}
    assert found["Azure IPsec auh-dc1"].status == OK and "1024 bytes in" in found["Azure IPsec auh-dc1"].detail
    assert found["Azure IPsec dxb-dc1"].status == FAIL and "NotConnected" in found["Azure IPsec dxb-dc1"].detail
    assert not any("/other?" in p for p in Arm.seen)


def test_azure_without_credentials_says_how_to_log_in(arm, monkeypatch):
    monkeypatch.delenv("AZURE_ACCESS_TOKEN")
    found = list(area.azure_tunnels(context(stack_fleet("prod"), azure=arm)))
    assert [c.status for c in found] == [FAIL] and "az login" in found[0].remedy
    assert Arm.seen == []


# ---- reach from this machine ----------------------------------------------------------------------------------------
@pytest.fixture
def listener():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_every_resolver_and_registry_is_probed_and_failures_say_what_to_do(listener, monkeypatch):
    from moto import mock_aws

    fleet = stack_fleet("prod")
    up, down = f"127.0.0.1:{listener}", f"127.0.0.1:{_closed_port()}"
    endpoints = {"10.40.0.10:53": up, "10.40.64.10:53": up, "10.50.224.4:53": down,
                 "111122223333.dkr.ecr.me-central-1.amazonaws.com:443": up}
    # The ACR's name resolves to an address outside the VNet: the machine's DNS does not forward azurecr.io.
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.9", 443))] if host == "sahabprod.azurecr.io"
        else real(host, *a, **k))
    with mock_aws():  # no cluster exists yet: no API server to probe
        found = {c.name: c for c in area.reach(context(fleet, **endpoints))}
    assert found["reach inbound resolver of the me-central-1 VPC"].status == OK
    assert found["reach inbound resolver of the uaenorth VNet"].status == FAIL
    assert "link to the VNet" in found["reach inbound resolver of the uaenorth VNet"].remedy
    assert found["reach registry 111122223333.dkr.ecr.me-central-1.amazonaws.com"].status == OK
    acr = found["reach registry sahabprod.azurecr.io"]
    assert acr.status == FAIL and "outside 10.50.0.0/16" in acr.detail and "azurecr.io" in acr.remedy
    # This machine sends from 127.0.0.1, not from auh-dc1's 10.10.0.0/16: it is not where the deployer is.
    source = found["this machine's address"]
    assert source.status == FAIL and "10.10.0.0/16" in source.detail and "sahab:fleet.deployer" in source.remedy


def test_a_machine_inside_the_deployers_blocks_passes(listener):
    fleet = stack_fleet("dev", deployer={"cidrs": ["127.0.0.0/8"]})
    endpoints = {"111122223333.dkr.ecr.me-central-1.amazonaws.com:443": f"127.0.0.1:{listener}"}
    from moto import mock_aws

    with mock_aws():
        found = {c.name: c for c in area.reach(context(fleet, **endpoints))}
    assert found["this machine's address"].status == OK
    assert found["reach registry 111122223333.dkr.ecr.me-central-1.amazonaws.com"].status == OK


def test_existing_api_servers_are_probed_by_their_names(listener, monkeypatch):
    monkeypatch.setattr(area, "_eks_endpoint", lambda ctx, name, region: "abc123.gr7.me-central-1.eks.amazonaws.com")
    fleet = stack_fleet("dev")
    endpoints = {"abc123.gr7.me-central-1.eks.amazonaws.com:443": f"127.0.0.1:{listener}",
                 "10.60.0.10:53": f"127.0.0.1:{listener}", "10.60.64.10:53": f"127.0.0.1:{listener}",
                 "111122223333.dkr.ecr.me-central-1.amazonaws.com:443": f"127.0.0.1:{listener}"}
    found = {c.name: c for c in area.reach(context(fleet, **endpoints))}
    assert found["reach API server of eks-dev"].status == OK


def test_the_area_runs_through_the_doctor_and_skips_fleets_without_clouds():
    assert list(run_checks(context(stack_fleet("smb")), only=["network"])) == []


def test_before_the_first_up_the_doctor_says_what_is_not_built_yet(arm, listener):
    from moto import mock_aws

    Arm.connections = {}
    fleet = stack_fleet("prod", clouds={"aws": {"region": "me-central-1"},
                                        "azure": {"location": "uaenorth", "subscription_id": SUBSCRIPTION}})
    endpoints = {"azure": arm, "10.40.0.10:53": f"127.0.0.1:{listener}",
                 "111122223333.dkr.ecr.me-central-1.amazonaws.com:443": f"127.0.0.1:{listener}"}
    with mock_aws():
        found = {c.name: c for c in run_checks(context(fleet, **endpoints), only=["network"])}
    assert found["AWS VPN tunnels (me-central-1)"].status == SKIP
    assert found["Azure VPN connections"].status == SKIP
    for what in ("inbound resolver of the me-central-1 VPC", "inbound resolver of the uaenorth VNet",
                 "registry sahabprod.azurecr.io"):
        assert found[f"reach {what}"].status == SKIP and "first `pulumi up`" in found[f"reach {what}"].detail
    assert found["reach registry 111122223333.dkr.ecr.me-central-1.amazonaws.com"].status == OK
    # What it can tell before anything exists: whether this machine sends from the deployer's site.
    assert found["this machine's address"].status == FAIL

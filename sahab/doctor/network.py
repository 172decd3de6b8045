"""The hybrid network, seen from this machine and asked of the clouds: are the sites' tunnels up, and will this
machine (the deployer, components.hybrid_config) reach every API server and registry a `pulumi up` talks to?

- Tunnels: AWS VPN connections of the fleet (EC2 DescribeVpnConnections, by the `sahab.io/fleet` tag): a
  connection is up when one of its two tunnels is UP. Azure VPN connections (ARM: the subscription's
  Microsoft.Network/connections with the fleet's tag, then each connection's `connectionStatus`). Before the first
  `pulumi up` there are none: that is said, not failed.
- Reach: the inbound resolvers at their fixed addresses (DNS over TCP 53: this machine is routed into the cloud
  network over a link), each registry and each existing API server by name: it must resolve (to an address inside
  its network where it is private) and accept a TCP connection on 443. Each failure says what to do.

Every probe has the context's timeout; nothing is changed anywhere. `ctx.endpoints` aims the probes at stand-ins
in tests: `aws` and `azure` (API endpoints) and `<host>:<port>` -> `<address>:<port>` for any address probed.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import socket
import subprocess
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from sahab.doctor import FAIL, OK, SKIP, Check, DoctorContext

AREA = "network"
ARM = "https://management.azure.com"
RESOURCES_API = "2021-04-01"
NETWORK_API = "2024-05-01"
CONTAINER_API = "2024-09-01"
FLEET_TAG = "sahab.io/fleet"
SITE_TAG = "sahab.io/site"


def checks(ctx: DoctorContext) -> Iterator[Check]:
    fleet = ctx.fleet
    if fleet is None:
        return
    from sahab.components.hybrid_build import site_cidrs

    unbuilt: set[str] = set()  # clouds whose links do not exist yet: their private ends cannot answer either
    for cloud, tunnels in (("aws", aws_tunnels), ("azure", azure_tunnels)):
        if site_cidrs(fleet, cloud):
            for check in tunnels(ctx):
                if check.status == SKIP:
                    unbuilt.add(cloud)
                yield check
    yield from reach(ctx, unbuilt)


# ---- tunnels -----------------------------------------------------------------------------------------------------
def _ec2(ctx: DoctorContext, region: str, service: str = "ec2") -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(service, region_name=region, endpoint_url=ctx.endpoints.get("aws"), config=Config(
        connect_timeout=ctx.timeout, read_timeout=ctx.timeout, retries={"max_attempts": 1}))


def _aws_regions(fleet: Any) -> list[str]:
    from sahab.components.kinds import get

    return sorted({fleet.region_of(c) for c in fleet.clusters if get(c.kind).cloud == "aws" and not c.stack_reference})


def aws_tunnels(ctx: DoctorContext) -> Iterator[Check]:
    fleet = ctx.fleet
    expected = {s.name for s in fleet.sites if any(lk.cloud == "aws" and lk.type == "vpn" for lk in s.links)}
    for region in _aws_regions(fleet):
        name = f"AWS VPN tunnels ({region})"
        try:
            found = _ec2(ctx, region).describe_vpn_connections(
                Filters=[{"Name": f"tag:{FLEET_TAG}", "Values": [fleet.name]}])["VpnConnections"]
        except Exception as exc:  # credentials, network, permissions: say which
            yield Check(AREA, name, FAIL, f"cannot ask EC2: {type(exc).__name__}: {exc}",
                        "give this shell AWS credentials for the fleet's account (aws sso login, AWS_PROFILE)")
            continue
        live = [c for c in found if c.get("State") not in ("deleted", "deleting")]
        if not live:
            yield Check(AREA, name, SKIP, f"no VPN connection of fleet {fleet.name} yet: `pulumi up` creates them")
            continue
        for connection in live:
            yield tunnel_status(connection)
        seen = {_tags(c).get(SITE_TAG) for c in live}
        for site in sorted(expected - seen):
            yield Check(AREA, f"AWS VPN {site}", FAIL, f"no VPN connection for site {site} in {region}",
                        "run `pulumi up`: the site's link to the VPC is part of the fleet")


def _tags(resource: dict[str, Any]) -> dict[str, str]:
    return {t.get("Key"): t.get("Value") for t in resource.get("Tags") or []}


def tunnel_status(connection: dict[str, Any]) -> Check:
    """One AWS VPN connection (a DescribeVpnConnections item): up when it is available and a tunnel is UP."""
    tags = _tags(connection)
    name = f"AWS VPN {tags.get(SITE_TAG) or tags.get('Name') or connection.get('VpnConnectionId')}"
    telemetry = connection.get("VgwTelemetry") or []
    tunnels = ", ".join(f"{t.get('OutsideIpAddress')} {t.get('Status')}"
                        + (f" ({t['StatusMessage']})" if t.get("StatusMessage") else "") for t in telemetry)
    state = connection.get("State")
    detail = f"{connection.get('VpnConnectionId')} {state}; tunnels: {tunnels or 'no telemetry yet'}"
    if state == "available" and any(t.get("Status") == "UP" for t in telemetry):
        return Check(AREA, name, OK, detail)
    return Check(AREA, name, FAIL, detail, "bring up the site's end: `pulumi up` converges its gateway host (or "
                 "configure its router from the stack output hybrid.sites.<site>.routerConfig); on the gateway, "
                 "`swanctl --list-sas` shows what IKE says")


def _azure_token(ctx: DoctorContext) -> str | None:
    token = os.environ.get("AZURE_ACCESS_TOKEN")
    if token:
        return token
    az = shutil.which("az")
    if az is None:
        return None
    try:
        done = subprocess.run([az, "account", "get-access-token", "--resource", f"{ARM}/", "--query", "accessToken",
                               "-o", "tsv"], capture_output=True, text=True, timeout=ctx.timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def _arm(ctx: DoctorContext, token: str, path: str, api: str, query: dict[str, str] | None = None) -> dict:
    base = ctx.endpoints.get("azure", ARM).rstrip("/")
    params = urllib.parse.urlencode({**(query or {}), "api-version": api})
    request = urllib.request.Request(f"{base}{path}?{params}", headers={"Authorization": f"Bearer {token}"})
    # A stand-in on loopback is reached directly, never through a proxy from the environment.
    loopback = urllib.parse.urlparse(base).hostname in ("127.0.0.1", "localhost", "::1")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({})) if loopback else \
        urllib.request.build_opener()
    with opener.open(request, timeout=ctx.timeout) as response:
        return json.loads(response.read())


def _subscription(ctx: DoctorContext) -> str | None:
    fleet = ctx.fleet
    return (fleet.clouds.azure.subscription_id if fleet.clouds.azure else None) or \
        ctx.config.get("azure-native:subscriptionId") or os.environ.get("ARM_SUBSCRIPTION_ID")


def _fleet_resources(ctx: DoctorContext, token: str, subscription: str, kind: str) -> list[dict]:
    found = _arm(ctx, token, f"/subscriptions/{subscription}/resources", RESOURCES_API,
                 {"$filter": f"resourceType eq '{kind}'"})
    return [r for r in found.get("value", []) if (r.get("tags") or {}).get(FLEET_TAG) == ctx.fleet.name]


def azure_tunnels(ctx: DoctorContext) -> Iterator[Check]:
    name = "Azure VPN connections"
    token, subscription = _azure_token(ctx), _subscription(ctx)
    if token is None or subscription is None:
        yield Check(AREA, name, FAIL, "no Azure credentials or subscription to ask ARM with",
                    "`az login` (and set clouds.azure.subscription_id or `az account set`), or export "
                    "AZURE_ACCESS_TOKEN and ARM_SUBSCRIPTION_ID")
        return
    try:
        connections = _fleet_resources(ctx, token, subscription, "Microsoft.Network/connections")
        details = [_arm(ctx, token, c["id"], NETWORK_API) for c in connections]
    except Exception as exc:
        yield Check(AREA, name, FAIL, f"cannot ask ARM: {type(exc).__name__}: {exc}",
                    "check `az account show` names the fleet's subscription and this machine reaches ARM")
        return
    if not details:
        yield Check(AREA, name, SKIP, f"no connection of fleet {ctx.fleet.name} yet: `pulumi up` creates them")
    for connection in details:
        yield connection_status(connection)


def connection_status(connection: dict[str, Any]) -> Check:
    """One Azure virtual network gateway connection (its ARM GET): up when its connectionStatus is Connected."""
    tags = connection.get("tags") or {}
    properties = connection.get("properties") or {}
    status = properties.get("connectionStatus", "Unknown")
    name = f"Azure {properties.get('connectionType', 'IPsec')} {tags.get(SITE_TAG) or connection.get('name')}"
    detail = (f"{connection.get('name')} {status}; {properties.get('ingressBytesTransferred', 0)} bytes in, "
              f"{properties.get('egressBytesTransferred', 0)} out")
    if status == "Connected":
        return Check(AREA, name, OK, detail)
    return Check(AREA, name, FAIL, detail, "bring up the site's end (its gateway host, or its router from "
                 "hybrid.sites.<site>.routerConfig); Azure says why in the connection's diagnostics")


# ---- reach from this machine -------------------------------------------------------------------------------------
def reach(ctx: DoctorContext, unbuilt: set[str] = frozenset()) -> Iterator[Check]:
    from sahab.components.hybrid_config import deployer_of
    from sahab.components.hybrid_plan import cloud_networks
    from sahab.components.kinds import kinds

    fleet = ctx.fleet
    deployer = deployer_of(fleet)
    site = next((s for s in fleet.sites if deployer and s.name == deployer.site), None)
    blocks = [ipaddress.ip_network(b) for b in (deployer.cidrs if deployer and deployer.cidrs else
                                                 site.networks if site else ())]
    where = f"site {site.name}" if site else "this machine"
    targets: list[tuple[str, str, int, list[str], str]] = []  # (what, host, port, private blocks, remedy)
    later: list[str] = []  # what the first `pulumi up` creates: nothing to probe yet
    linked = {lk.cloud for lk in site.links} if site else set()
    for cloud, region, cidr, resolvers in cloud_networks(fleet):
        kind = "VPC" if cloud == "aws" else "VNet"
        if cloud in linked and cloud in unbuilt:
            later += [f"inbound resolver of the {region} {kind}"] * bool(resolvers)
        elif cloud in linked:
            targets += [(f"inbound resolver of the {region} {kind}", address, 53, [cidr],
                         f"{where}'s link to the {kind} is not up or routes nothing here: see the tunnel checks")
                        for address in resolvers]
    site_name = deployer.site if deployer and deployer.site else "<site>"
    for spec in kinds().values():  # each kind's registry in its cloud network
        host, cidr, registry = fleet.registries.host_of(spec.name), spec.network(fleet), spec.registry
        if host and cidr and registry.private_only and spec.cloud in unbuilt:
            later.append(f"registry {host}")
        elif host and cidr:
            # ECR also answers on its public endpoint; the ACR only privately (its public network access is off).
            zone = registry.zone(fleet)
            targets.append((f"registry {host}", host, 443, [cidr] if registry.private_only else [],
                            f"make this machine's DNS forward {zone} to the inbound resolver (`sahab forwarders "
                            f"--stack {ctx.stack} --site {site_name}` prints the site's DNS servers' settings) and "
                            "check the link"))
    targets += _api_servers(ctx)
    for what in later:
        yield Check(AREA, f"reach {what}", SKIP, "not built yet: the first `pulumi up` creates it with the site's "
                    "link; run `sahab doctor` again after it")
    if not targets and not later:
        return
    probes = {(host, port): _probe(ctx, host, port, private) for _, host, port, private, _ in targets}
    if blocks:
        # Towards the first linked network (built or not, the routing decision is this machine's), else a target.
        towards = next(((r[0], 53) for cloud, _, _, r in cloud_networks(fleet) if cloud in linked and r),
                       targets[0][1:3] if targets else None)
        if towards is not None:
            yield _source_check(ctx, towards, blocks, where)
    for what, host, port, _, remedy in targets:
        status, detail = probes[(host, port)]
        yield Check(AREA, f"reach {what}", status, detail, remedy if status == FAIL else "")


def _api_servers(ctx: DoctorContext) -> list[tuple[str, str, int, list[str], str]]:
    """The API servers that exist already (after a first `pulumi up`), by the names their clouds give them."""
    from sahab.components.kinds import get

    fleet = ctx.fleet
    found = []
    for cluster in fleet.clusters:
        spec = get(cluster.kind)
        if cluster.stack_reference or spec.cloud is None:
            continue
        name = f"{fleet.name}-{cluster.name}"
        try:
            host = _api_endpoint(ctx, spec.cloud, name, fleet.region_of(cluster))
        except Exception:
            host = None  # no credentials, or not created yet: nothing to probe before `pulumi up`
        if host:
            cidr = spec.network(fleet)
            found.append((f"API server of {cluster.name}", host, 443, [cidr],
                          "this machine must be on the deployer's site network, its DNS forwarding the clusters' "
                          "zone to the inbound resolver; see the resolver and tunnel checks"))
    return found


def _api_endpoint(ctx: DoctorContext, cloud: str, name: str, region: str) -> str | None:
    """The host name of a cluster's API server, as the API of its cloud's managed Kubernetes gives it."""
    if cloud == "aws":
        return _eks_endpoint(ctx, name, region)
    if cloud == "azure":
        return _aks_endpoint(ctx, name)
    return None


def _eks_endpoint(ctx: DoctorContext, name: str, region: str) -> str | None:
    endpoint = _ec2(ctx, region, "eks").describe_cluster(name=name)["cluster"].get("endpoint") or ""
    return urllib.parse.urlparse(endpoint).hostname


def _aks_endpoint(ctx: DoctorContext, name: str) -> str | None:
    token, subscription = _azure_token(ctx), _subscription(ctx)
    if token is None or subscription is None:
        return None
    for cluster in _fleet_resources(ctx, token, subscription, "Microsoft.ContainerService/managedClusters"):
        if cluster.get("name") == name:
            properties = _arm(ctx, token, cluster["id"], CONTAINER_API).get("properties") or {}
            return properties.get("privateFQDN") or properties.get("fqdn")
    return None


def _stand_in(ctx: DoctorContext, host: str, port: int) -> tuple[str, int]:
    aimed = ctx.endpoints.get(f"{host}:{port}")
    if aimed is None:
        return host, port
    address, _, number = aimed.rpartition(":")
    return address, int(number)


def _resolve(host: str, port: int, timeout: float) -> str:
    """The first IPv4 address of `host`, within the timeout (getaddrinfo itself has none)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(socket.getaddrinfo, host, port, socket.AF_INET, socket.SOCK_STREAM)
        try:
            return future.result(timeout=timeout)[0][4][0]
        except FutureTimeout:
            raise socket.gaierror(f"no answer within {timeout:g} s") from None


def _probe(ctx: DoctorContext, host: str, port: int, private: list[str]) -> tuple[str, str]:
    """Resolve, check the address is where it must be, connect; (status, what was found)."""
    target, target_port = _stand_in(ctx, host, port)
    try:
        address = _resolve(target, target_port, ctx.timeout)
    except (socket.gaierror, OSError) as exc:
        return FAIL, f"{host} does not resolve ({exc})"
    shown = host if address == host else f"{host} -> {address}"
    if private and target == host and not any(ipaddress.ip_address(address) in ipaddress.ip_network(b)
                                              for b in private):
        return FAIL, f"{shown}: outside {', '.join(private)}, so not through the link (DNS is not forwarded here)"
    try:
        with socket.create_connection((address, target_port), timeout=ctx.timeout):
            pass
    except OSError as exc:
        return FAIL, f"{shown}: no TCP connection on {port} ({exc.strerror or exc})"
    return OK, f"{shown}: TCP {port} answers"


def _source_check(ctx: DoctorContext, towards: tuple[str, int], blocks: list, where: str) -> Check:
    """The address this machine would send from towards a cloud network: inside the deployer's blocks? A UDP
    socket's connect() picks it without sending anything."""
    host, port = towards
    target, target_port = _stand_in(ctx, host, port)
    try:
        address = _resolve(target, target_port, ctx.timeout)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((address, target_port))
            source = probe.getsockname()[0]
    except OSError as exc:
        return Check(AREA, "this machine's address", FAIL, f"no route towards {host} ({exc})",
                     f"run `pulumi up` from {where}'s network")
    shown = ", ".join(map(str, blocks))
    if any(ipaddress.ip_address(source) in b for b in blocks):
        return Check(AREA, "this machine's address", OK, f"{source}, inside the deployer's blocks ({shown})")
    return Check(AREA, "this machine's address", FAIL, f"{source} is outside the deployer's blocks ({shown})",
                 f"run `pulumi up` from {where}'s network (a laptop there, or a self-hosted CI runner), or "
                 "declare where it runs in sahab:fleet.deployer")

"""What the clouds sell this stack, and let it use: asked of the clouds' APIs before `pulumi up`.

AWS, per region of the stack's EKS pools: whether the account has the region enabled (EC2 DescribeRegions'
OptInStatus; me-central-1 is an opt-in region), whether each pool's zone IDs sell its instance type today (EC2
DescribeInstanceTypeOfferings by availability-zone-id, against the repository's snapshot), and whether the EC2
vCPU quota of each pool's instance family and purchase option (Service Quotas) holds what the pools may run
at their largest (max_size x vCPUs) beside what already runs (DescribeInstances).

Azure, per location of the stack's AKS pools: whether each VM size is sold there and to this subscription
(Resource SKUs `restrictions`, NotAvailableForSubscription included, and `locationInfo.zones` against the pool's
zones), and whether the regional, per-family and spot (low-priority) vCPU limits hold the pools at their largest
beside current usage (Compute Usages). The token is the Azure CLI's (`az account get-access-token`): the same
login kubelogin's azurecli mode uses.

Each gap names the request that closes it: the quota code and value to ask for, the region to enable, the size
or zones to pick.
"""

from __future__ import annotations

import json
import re
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sahab.doctor import FAIL, OK, SKIP, Check, DoctorContext

AREA = "clouds"
ARM = "https://management.azure.com"
AZURE_USAGES_API = "2023-09-01"  # Microsoft.Compute/locations/usages ("Usage - List")

# EC2 vCPU quotas (Service Quotas, service code ec2) per instance class: on-demand and spot. The names are the
# quota names AWS lists ("Running On-Demand ... instances", "All ... Spot Instance Requests", EC2 User Guide,
# "On-Demand Instance quotas" and "Spot Instance quotas"); L-1216C47A is in AWS's CLI guide
# (service-quotas get-aws-default-service-quota example); the other codes are as Service Quotas lists them.
EC2_QUOTAS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "standard": (("L-1216C47A", "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances"),
                 ("L-34B43A08", "All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests")),
    "g": (("L-DB2E81BA", "Running On-Demand G and VT instances"),
          ("L-3819A6DF", "All G and VT Spot Instance Requests")),
    "p": (("L-417A185B", "Running On-Demand P instances"), ("L-7212CCBC", "All P Spot Instance Requests")),
    "x": (("L-7295265B", "Running On-Demand X instances"), ("L-E3A00192", "All X Spot Instance Requests")),
    "f": (("L-74FC7D96", "Running On-Demand F instances"), ("L-88CF9481", "All F Spot Instance Requests")),
    "inf": (("L-1945791B", "Running On-Demand Inf instances"), ("L-B5D1601B", "All Inf Spot Instance Requests")),
}


# Family letters with a quota of their own that Sahab does not map (DL, Trn, HPC, high memory): no verdict.
_UNMAPPED = ("dl", "trn", "hpc", "u")


def ec2_class(instance_type: str) -> str | None:
    """The quota class of an instance type from its family's leading letters (g5 -> g, vt1 -> g, inf2 -> inf,
    p5en -> p, m6i -> standard); None for a class Sahab does not map."""
    found = re.match(r"[a-z]+", instance_type.partition(".")[0])
    letters = found.group(0) if found else ""
    if letters in _UNMAPPED or letters.startswith(_UNMAPPED[:3]):
        return None
    if letters.startswith("inf"):
        return "inf"
    if letters.startswith("vt") or letters.startswith("g"):
        return "g"
    first = letters[:1]
    if first and first in "acdhimrtz":
        return "standard"
    return first if first in EC2_QUOTAS else None


@dataclass(frozen=True)
class CloudPool:
    name: str
    path: str  # its config path, which a remedy names
    cluster: str
    kind: str  # its cluster's kind, one with a cloud
    region: str
    instance_type: str
    zones: tuple[str, ...]
    max_size: int
    spot: bool


def cloud_pools(fleet: Any) -> list[CloudPool]:
    """The stack's cloud pools (created clusters' and those it adds to another stack's) with their limits, and
    the system pool of each cluster it creates whose kind has one (AKS's), which this stack creates too."""
    from sahab.components.fleet_config import ROOT
    from sahab.components.kinds import get

    found = []
    for i, pool in enumerate(fleet.node_pools):
        cluster = fleet.cluster(pool.cluster)
        if get(cluster.kind).cloud is not None:
            found.append(CloudPool(pool.name, f"{ROOT}.node_pools[{i}]", cluster.name, cluster.kind,
                                   fleet.region_of(cluster), pool.instance_type, tuple(pool.zones), pool.max_size,
                                   pool.spot))
    for j, cluster in enumerate(fleet.clusters):
        system_pool = get(cluster.kind).system_pool
        if system_pool is not None and not cluster.stack_reference:
            instance_type, max_size = system_pool()
            found.append(CloudPool(f"{cluster.name} system pool", f"{ROOT}.clusters[{j}]", cluster.name, cluster.kind,
                                   fleet.region_of(cluster), instance_type, (), max_size, False))
    return found


def checks(ctx: DoctorContext) -> Iterator[Check]:
    fleet = ctx.fleet
    if fleet is None:
        return
    from sahab.components.kinds import get

    pools = cloud_pools(fleet)
    if not pools:
        yield Check(AREA, "cloud pools", SKIP, "the stack has no EKS or AKS pools")
        return
    # What each cloud sells and lets the stack use, per region, asked of that cloud's APIs.
    for cloud, per_region in (("aws", _aws_region), ("azure", _azure_location)):
        ours = [p for p in pools if get(p.kind).cloud == cloud]
        for region in sorted({p.region for p in ours}):
            yield from per_region(ctx, region, [p for p in ours if p.region == region])


# ---- AWS ---------------------------------------------------------------------------------------------------
def _aws_client(ctx: DoctorContext, service: str, region: str) -> Any:
    import boto3
    from botocore.config import Config

    config = Config(connect_timeout=ctx.timeout, read_timeout=ctx.timeout, retries={"max_attempts": 2})
    return boto3.client(service, region_name=region, endpoint_url=ctx.endpoints.get(service), config=config)


def _aws_region(ctx: DoctorContext, region: str, pools: list[CloudPool]) -> Iterator[Check]:
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    try:
        ec2 = _aws_client(ctx, "ec2", region)
        yield _opt_in(ec2, region)
        types = sorted({p.instance_type for p in pools})
        offered = _offerings(ec2, types)
        facts = _instance_facts(ec2, types)
        yield from (_offered(region, p, offered) for p in pools)
        yield from _quotas(ctx, ec2, region, pools, facts)
    except NoCredentialsError:
        yield Check(AREA, f"aws {region}", FAIL, "no AWS credentials found",
                    "sign in (aws sso login, or set AWS_PROFILE) with the account that runs `pulumi up`")
    except (ClientError, BotoCoreError) as err:
        code = getattr(err, "response", {}).get("Error", {}).get("Code", "") if isinstance(err, ClientError) else ""
        if code in ("OptInRequired", "AuthFailure"):
            yield Check(AREA, f"region {region}", FAIL, f"the account cannot use {region} ({code})",
                        f"enable it: aws account enable-region --region-name {region} (then wait until "
                        f"aws account get-region-opt-status --region-name {region} says ENABLED)")
        else:
            yield Check(AREA, f"aws {region}", FAIL, f"{type(err).__name__}: {err}",
                        "check the account's credentials and network path to the EC2 and Service Quotas APIs")


def _opt_in(ec2: Any, region: str) -> Check:
    answer = ec2.describe_regions(AllRegions=True, RegionNames=[region])["Regions"]
    status = answer[0].get("OptInStatus", "") if answer else "unknown"
    if status in ("opted-in", "opt-in-not-required"):
        return Check(AREA, f"region {region}", OK, f"enabled for the account ({status})")
    return Check(AREA, f"region {region}", FAIL, f"not enabled for the account (OptInStatus {status}); "
                 f"{region} is an opt-in region", f"aws account enable-region --region-name {region}")


def _offerings(ec2: Any, types: list[str]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {t: set() for t in types}
    pages = ec2.get_paginator("describe_instance_type_offerings").paginate(
        LocationType="availability-zone-id", Filters=[{"Name": "instance-type", "Values": types}])
    for page in pages:
        for offering in page["InstanceTypeOfferings"]:
            found.setdefault(offering["InstanceType"], set()).add(offering["Location"])
    return found


def _instance_facts(ec2: Any, types: list[str]) -> dict[str, int]:
    """vCPUs per instance type, as EC2 describes it (the snapshot's when EC2 does not answer for one)."""
    from sahab.components import offerings

    vcpus = {t: f.vcpus for t in types if (f := offerings.aws_instance(t))}
    for info in ec2.describe_instance_types(InstanceTypes=types).get("InstanceTypes", []):
        vcpus[info["InstanceType"]] = info["VCpuInfo"]["DefaultVCpus"]
    return vcpus


def _offered(region: str, pool: CloudPool, offered: dict[str, set[str]]) -> Check:
    from sahab.components import offerings

    selling = sorted(offered.get(pool.instance_type, set()))
    name = f"offerings {pool.name}"
    missing = [z for z in pool.zones if z not in selling]
    snap = offerings.snapshot("aws", region)
    recorded = sorted(snap.offered.get(pool.instance_type, ())) if snap else []
    drift = f"; the snapshot of {snap.data_as_of} says {', '.join(recorded) or 'none'}" \
        if snap and recorded != selling else ""
    if not selling:
        return Check(AREA, name, FAIL, f"{pool.instance_type} is not sold in {region} today{drift}",
                     f"pick an instance type {region} sells for {pool.path}, and refresh the snapshot: "
                     f"{offerings.REFRESH['aws']}")
    if missing:
        return Check(AREA, name, FAIL, f"{pool.instance_type} is sold in {', '.join(selling)}, not in "
                     f"{', '.join(missing)}, where the pool is placed{drift}",
                     f"set {pool.path}.zones to zones that sell it ({', '.join(selling)}) and refresh the "
                     f"snapshot: {offerings.REFRESH['aws']}")
    where = ", ".join(pool.zones) or "its zones"
    return Check(AREA, name, OK, f"{pool.instance_type} is sold in {where} ({', '.join(selling)} sell it){drift}")


def _quotas(ctx: DoctorContext, ec2: Any, region: str, pools: list[CloudPool],
            vcpus: dict[str, int]) -> Iterator[Check]:
    quotas = _aws_client(ctx, "service-quotas", region)
    used = _running_vcpus(ec2, vcpus)
    demand: dict[tuple[str, bool], list[CloudPool]] = {}
    for pool in pools:
        kind = ec2_class(pool.instance_type)
        if kind is None or pool.instance_type not in vcpus:
            yield Check(AREA, f"quota {pool.name}", SKIP, f"no EC2 vCPU quota Sahab knows for {pool.instance_type}")
            continue
        demand.setdefault((kind, pool.spot), []).append(pool)
    for (kind, spot), members in sorted(demand.items()):
        code, title = EC2_QUOTAS[kind][1 if spot else 0]
        wanted = sum(p.max_size * vcpus[p.instance_type] for p in members)
        limit = _quota_value(quotas, code)
        running = used.get((kind, spot), 0)
        who = ", ".join(f"{p.name} (up to {p.max_size} x {p.instance_type}, {vcpus[p.instance_type]} vCPUs)"
                        for p in members)
        name = f"quota {code}"
        if limit is None:
            yield Check(AREA, name, FAIL, f"Service Quotas does not answer for {code} ({title}) in {region}",
                        f"check it in the Service Quotas console for {region}")
        elif running + wanted > limit:
            need = running + wanted
            yield Check(AREA, name, FAIL, f"{title}: {limit:g} vCPUs in {region}, {running} in use; {who} "
                        f"need{'s' if len(members) == 1 else ''} {wanted}",
                        f"aws service-quotas request-service-quota-increase --service-code ec2 --quota-code {code} "
                        f"--desired-value {need} --region {region}")
        else:
            yield Check(AREA, name, OK, f"{title}: {limit:g} vCPUs, {running} in use, {wanted} for {who}")


def _quota_value(client: Any, code: str) -> float | None:
    """The account's applied value, else AWS's default for it."""
    from botocore.exceptions import ClientError

    for call in (client.get_service_quota, client.get_aws_default_service_quota):
        try:
            return float(call(ServiceCode="ec2", QuotaCode=code)["Quota"]["Value"])
        except ClientError as err:
            if err.response.get("Error", {}).get("Code") != "NoSuchResourceException":
                raise
    return None


def _running_vcpus(ec2: Any, vcpus: dict[str, int]) -> dict[tuple[str, bool], int]:
    """vCPUs of the running and pending instances per (quota class, spot)."""
    used: dict[tuple[str, bool], int] = {}
    pages = ec2.get_paginator("describe_instances").paginate(
        Filters=[{"Name": "instance-state-name", "Values": ["pending", "running"]}])
    for page in pages:
        for reservation in page["Reservations"]:
            for instance in reservation["Instances"]:
                kind = ec2_class(instance["InstanceType"])
                cpu = instance.get("CpuOptions") or {}
                count = cpu.get("CoreCount", 0) * cpu.get("ThreadsPerCore", 1) or vcpus.get(instance["InstanceType"], 0)
                if kind:
                    key = (kind, instance.get("InstanceLifecycle") == "spot")
                    used[key] = used.get(key, 0) + count
    return used


# ---- Azure -------------------------------------------------------------------------------------------------
def _azure_location(ctx: DoctorContext, location: str, pools: list[CloudPool]) -> Iterator[Check]:
    try:
        token, subscription = _azure_token(ctx)
    except (OSError, subprocess.SubprocessError, ValueError, KeyError) as err:
        yield Check(AREA, f"azure {location}", FAIL, f"no Azure token ({type(err).__name__}: {err})",
                    "install the Azure CLI and sign in: az login (kubelogin's azurecli mode uses the same login)")
        return
    subscription = (ctx.fleet.clouds.azure.subscription_id or subscription) if ctx.fleet.clouds.azure else subscription
    endpoint = ctx.endpoints.get("azure", ARM).rstrip("/")
    base = f"{endpoint}/subscriptions/{subscription}/providers/Microsoft.Compute"
    try:
        from sahab.components.offerings import AZURE_SKUS_API

        query = urllib.parse.urlencode({"api-version": AZURE_SKUS_API, "$filter": f"location eq '{location}'"})
        skus = {s["name"]: s for s in _arm_list(ctx, f"{base}/skus?{query}", token)
                if s.get("resourceType") == "virtualMachines"}
        usages = {u["name"]["value"]: u for u in _arm_list(
            ctx, f"{base}/locations/{location}/usages?api-version={AZURE_USAGES_API}", token)}
    except (OSError, ValueError, KeyError) as err:
        yield Check(AREA, f"azure {location}", FAIL, f"Azure Resource Manager did not answer: {err}",
                    "check the subscription id, the login (az login) and the network path to management.azure.com")
        return
    for pool in pools:
        yield _sku(location, pool, skus.get(pool.instance_type))
    yield from _azure_quotas(location, pools, skus, usages)


def _azure_token(ctx: DoctorContext) -> tuple[str, str]:
    out = subprocess.run(["az", "account", "get-access-token", "--resource", f"{ARM}/", "--output", "json"],
                         capture_output=True, text=True, timeout=ctx.timeout, check=True).stdout
    answer = json.loads(out)
    return answer["accessToken"], answer.get("subscription", "")


def _arm_list(ctx: DoctorContext, url: str, token: str) -> list[dict]:
    found: list[dict] = []
    while url:
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
        try:
            with urllib.request.urlopen(request, timeout=ctx.timeout) as answer:
                page = json.load(answer)
        except urllib.error.HTTPError as err:
            raise ValueError(f"HTTP {err.code} from {urllib.parse.urlsplit(url).path}") from None
        found += page.get("value", [])
        url = page.get("nextLink") or ""
    return found


def _sku(location: str, pool: CloudPool, sku: dict | None) -> Check:
    name = f"sku {pool.name}"
    if sku is None:
        return Check(AREA, name, FAIL, f"{pool.instance_type} is not sold in {location}",
                     f"pick a VM size {location} sells for {pool.path}.instance_type")
    info = next((i for i in sku.get("locationInfo", []) if i.get("location", "").lower() == location.lower()), {})
    zones = sorted(info.get("zones") or [])
    for restriction in sku.get("restrictions") or []:
        reason = restriction.get("reasonCode", "")
        kind = restriction.get("type")
        blocked = sorted((restriction.get("restrictionInfo") or {}).get("zones") or [])
        if kind == "Location":
            remedy = ("ask Microsoft for access to the size in this region for the subscription (an Azure support "
                      "request: Service and subscription limits (quotas), \"Region access\")"
                      if reason == "NotAvailableForSubscription" else
                      "the subscription's offer cannot use this size here; pick another size for " + pool.path)
            return Check(AREA, name, FAIL, f"{pool.instance_type} is restricted in {location} for this "
                         f"subscription ({reason})", remedy)
        if kind == "Zone" and set(blocked) & set(pool.zones):
            return Check(AREA, name, FAIL, f"{pool.instance_type} is restricted in zones {', '.join(blocked)} of "
                         f"{location} ({reason}); the pool is placed in {', '.join(pool.zones)}",
                         f"set {pool.path}.zones to {', '.join(z for z in zones if z not in blocked) or 'none'}, "
                         "or ask Microsoft for zonal access to the size")
    missing = [z for z in pool.zones if z not in zones]
    if missing:
        return Check(AREA, name, FAIL, f"{pool.instance_type} is offered in zones {', '.join(zones) or 'none'} "
                     f"of {location}, not {', '.join(missing)}",
                     f"set {pool.path}.zones to zones that offer it ({', '.join(zones) or 'none: leave it unset'})")
    return Check(AREA, name, OK, f"{pool.instance_type} is offered in {location}"
                 + (f", zones {', '.join(zones)}" if zones else " (no zones)"))


def _azure_quotas(location: str, pools: list[CloudPool], skus: dict[str, dict],
                  usages: dict[str, dict]) -> Iterator[Check]:
    def vcpus(pool: CloudPool) -> int:
        capabilities = {c["name"]: c["value"] for c in (skus.get(pool.instance_type) or {}).get("capabilities", [])}
        return int(capabilities.get("vCPUs", 0))

    groups: dict[str, list[CloudPool]] = {}
    for pool in pools:
        sku = skus.get(pool.instance_type)
        if sku is None or not vcpus(pool):
            continue
        groups.setdefault("lowPriorityCores" if pool.spot else "cores", []).append(pool)
        if not pool.spot:
            groups.setdefault(sku.get("family", ""), []).append(pool)
    for limit_name, members in sorted(groups.items()):
        usage = usages.get(limit_name)
        title = (usage or {}).get("name", {}).get("localizedValue") or limit_name
        wanted = sum(p.max_size * vcpus(p) for p in members)
        who = ", ".join(f"{p.name} (up to {p.max_size} x {p.instance_type})" for p in members)
        if usage is None:
            yield Check(AREA, f"quota {limit_name}", FAIL, f"Azure lists no vCPU limit {limit_name} in {location}",
                        "check the subscription's compute quotas in the portal (Quotas, Compute)")
            continue
        current, limit = int(usage.get("currentValue", 0)), int(usage.get("limit", 0))
        if current + wanted > limit:
            yield Check(AREA, f"quota {limit_name}", FAIL, f"{title}: limit {limit} in {location}, {current} in use; "
                        f"{who} need {wanted}",
                        f"request a limit of {current + wanted} for {title} ({limit_name}) in {location} (Azure "
                        "portal: Quotas, Compute, or a support request)")
        else:
            yield Check(AREA, f"quota {limit_name}", OK, f"{title}: limit {limit}, {current} in use, {wanted} for "
                        f"{who}")

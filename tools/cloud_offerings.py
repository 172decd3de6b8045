"""Write the clouds' offering snapshots (components/offerings/) from the clouds' own APIs.

AWS, per region: the zone IDs (EC2 DescribeAvailabilityZones), which instance types each zone ID sells
(DescribeInstanceTypeOfferings with LocationType=availability-zone-id) and, once for all regions, the facts
of each type Sahab places (DescribeInstanceTypes: vCPUs, memory, GPUs and their memory, EFA interfaces, network
cards). Only the families of the hardware catalog (components/accelerators.py) are kept.

    # with credentials for the account (any account answers the same offerings per zone ID):
    python tools/cloud_offerings.py aws --regions me-central-1
    # from moto's mock EC2 API (its bundled copy of AWS's data), on loopback:
    python -m moto.server -p 5999 &
    python tools/cloud_offerings.py aws --regions all --endpoint-url http://127.0.0.1:5999 \\
        --data-as-of 2026-03-16 --source "moto 5.2.5 (getmoto/moto b6e48f1ca, 2026-03-16)"

Azure, per location: the Resource SKUs of the catalog's VM sizes with `locationInfo.zones` and
`restrictions` (GET /subscriptions/{id}/providers/Microsoft.Compute/skus, api-version 2021-07-01), with a
token from the Azure CLI (`az account get-access-token`):

    python tools/cloud_offerings.py azure --locations uaenorth uaecentral --subscription <id>

`--data-as-of` is the date the data describes (default: today, right for a live API); the staleness test
(tests/components/clouds/test_offerings.py) judges snapshots by it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sahab.components import accelerators  # noqa: E402
from sahab.components.offerings import AWS_DIR, AZURE_SKUS_API, INSTANCE_TYPES_FILE  # noqa: E402

ARM = "https://management.azure.com"


def catalog_families() -> set[str]:
    return {family for acc in accelerators.CATALOG.values() for family in acc.aws_families}


def _family(instance_type: str) -> str:
    return instance_type.partition(".")[0]


def aws_region(ec2, families: set[str]) -> tuple[list[str], dict[str, list[str]], int]:
    """Zone IDs of a region's availability zones, the zone IDs each catalog instance type is sold in, and how
    many offerings of any type the API listed (none: it has no data for the region)."""
    zones = ec2.describe_availability_zones(AllAvailabilityZones=False)["AvailabilityZones"]
    zone_ids = sorted(z["ZoneId"] for z in zones if z.get("ZoneType", "availability-zone") == "availability-zone")
    offered: dict[str, set[str]] = {}
    listed = 0
    paginator = ec2.get_paginator("describe_instance_type_offerings")
    # Filtered here, not with an `instance-type` wildcard filter: every API answers a plain listing the same.
    for page in paginator.paginate(LocationType="availability-zone-id"):
        for offering in page["InstanceTypeOfferings"]:
            listed += 1
            kind = offering["InstanceType"]
            if _family(kind) in families and offering["Location"] in zone_ids:
                offered.setdefault(kind, set()).add(offering["Location"])
    return zone_ids, {kind: sorted(zs) for kind, zs in sorted(offered.items())}, listed


def aws_instance_facts(ec2, instance_types: list[str]) -> dict[str, dict]:
    """What Sahab needs of each type: vCPUs (quotas), memory and GPUs (node shapes), EFA interfaces and network cards
    (the fabric)."""
    facts = {}
    for start in range(0, len(instance_types), 100):
        for info in ec2.describe_instance_types(InstanceTypes=instance_types[start:start + 100])["InstanceTypes"]:
            network = info.get("NetworkInfo", {})
            gpus = (info.get("GpuInfo") or {}).get("Gpus") or []
            facts[info["InstanceType"]] = {
                "vcpus": info["VCpuInfo"]["DefaultVCpus"],
                "memory_mib": info["MemoryInfo"]["SizeInMiB"],
                "gpus": sum(g["Count"] for g in gpus),
                "gpu": f"{gpus[0]['Manufacturer']} {gpus[0]['Name']}" if gpus else None,
                "gpu_memory_mib": gpus[0]["MemoryInfo"]["SizeInMiB"] if gpus else 0,
                "efa_interfaces": (network.get("EfaInfo") or {}).get("MaximumEfaInterfaces", 0)
                if network.get("EfaSupported") else 0,
                "network_cards": network.get("MaximumNetworkCards", 1),
            }
    return dict(sorted(facts.items()))


def _write(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_compact(doc) + "\n")


def _compact(doc: dict) -> str:
    """Top-level keys one per line, each entry of a mapping value on its own line: a refresh shows in a diff as
    the instance types and zones that changed."""
    parts = []
    for key, value in doc.items():
        if isinstance(value, dict) and value:
            inner = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in value.items())
            parts.append(f" {json.dumps(key)}: {{\n{inner}\n }}")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}"


def run_aws(args: argparse.Namespace) -> int:
    import boto3

    session = boto3.Session(profile_name=args.profile) if args.profile else boto3.Session()

    def client(region: str):
        return session.client("ec2", region_name=region, endpoint_url=args.endpoint_url)

    regions = args.regions
    if regions == ["all"]:
        regions = sorted(r["RegionName"] for r in client("us-east-1").describe_regions(AllRegions=True)["Regions"])
    families = catalog_families()
    meta = {"source": args.source or "EC2 API (DescribeAvailabilityZones, DescribeInstanceTypeOfferings by "
                                     "availability-zone-id, DescribeInstanceTypes)",
            "data_as_of": args.data_as_of}
    facts: dict[str, dict] = {}
    for region in regions:
        ec2 = client(region)
        zone_ids, offered, listed = aws_region(ec2, families)
        if not listed:  # an API without data for the region: record nothing rather than "sells nothing"
            print(f"{region}: no offerings listed; no snapshot written", file=sys.stderr)
            continue
        _write(args.out / "aws" / f"{region}.json", {"cloud": "aws", "region": region, **meta, "zones": zone_ids,
                                                     "offerings": offered})
        missing = sorted(set(offered) - set(facts))
        facts |= aws_instance_facts(ec2, missing) if missing else {}
        print(f"{region}: {len(zone_ids)} zones, {len(offered)} catalog instance types", file=sys.stderr)
    target = args.out / "aws" / INSTANCE_TYPES_FILE.name
    known = {}
    if target.is_file() and args.regions != ["all"]:  # other regions' types stay
        known = json.loads(target.read_text()).get("instance_types", {})
    _write(target, {"cloud": "aws", **meta, "instance_types": dict(sorted((known | facts).items()))})
    return 0


def azure_token() -> tuple[str, str]:
    """An ARM bearer token and the subscription it was issued for, from the Azure CLI's login."""
    out = subprocess.run(["az", "account", "get-access-token", "--resource", f"{ARM}/", "--output", "json"],
                         check=True, capture_output=True, text=True).stdout
    answer = json.loads(out)
    return answer["accessToken"], answer.get("subscription", "")


def azure_skus(endpoint: str, token: str, subscription: str, location: str) -> list[dict]:
    """Every Resource SKU the API lists for a location (following nextLink)."""
    query = urllib.parse.urlencode({"api-version": AZURE_SKUS_API, "$filter": f"location eq '{location}'"})
    url = f"{endpoint.rstrip('/')}/subscriptions/{subscription}/providers/Microsoft.Compute/skus?{query}"
    found = []
    while url:
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            page = json.load(answer)
        found += page.get("value", [])
        url = page.get("nextLink")
    return found


def azure_location_doc(skus: list[dict], location: str) -> dict[str, dict]:
    """The catalog's VM sizes in one location: zones, restrictions (type, reason, where), vCPUs and family."""
    wanted = {size for acc in accelerators.CATALOG.values() for size in acc.azure_series if acc.name != "cpu"}
    out = {}
    for sku in skus:
        name = sku.get("name", "")
        if sku.get("resourceType") != "virtualMachines":
            continue
        if name not in wanted and accelerators.accelerator_of_instance("azure", name) != "cpu":
            continue
        info = next((i for i in sku.get("locationInfo", []) if i.get("location", "").lower() == location), {})
        capabilities = {c["name"]: c["value"] for c in sku.get("capabilities", [])}
        out[name] = {
            "family": sku.get("family"),
            "vcpus": int(capabilities.get("vCPUs", 0)),
            "zones": sorted(info.get("zones") or []),
            "restrictions": [{"type": r.get("type"), "reason": r.get("reasonCode"),
                              "zones": sorted((r.get("restrictionInfo") or {}).get("zones") or []),
                              "locations": sorted(v.lower() for v in r.get("values") or [])}
                             for r in sku.get("restrictions") or []],
        }
    return dict(sorted(out.items()))


def run_azure(args: argparse.Namespace) -> int:
    token, subscription = azure_token()
    subscription = args.subscription or subscription
    for location in args.locations:
        doc = azure_location_doc(azure_skus(args.endpoint or ARM, token, subscription, location), location)
        _write(args.out / "azure" / f"{location}.json", {
            "cloud": "azure", "location": location,
            "source": args.source or f"Azure Resource SKUs API {AZURE_SKUS_API} for a subscription",
            "data_as_of": args.data_as_of, "skus": doc})
        print(f"{location}: {len(doc)} catalog VM sizes", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cloud", required=True)
    today = datetime.date.today().isoformat()
    aws = sub.add_parser("aws", help="EC2 offerings per zone ID")
    aws.add_argument("--regions", nargs="+", default=["me-central-1"], help="regions, or `all` (default: me-central-1)")
    aws.add_argument("--endpoint-url", default=None, help="an EC2 API other than AWS's (moto on loopback)")
    aws.add_argument("--profile", default=None, help="AWS profile (default: the environment's credentials)")
    azure = sub.add_parser("azure", help="Azure Resource SKUs per location")
    azure.add_argument("--locations", nargs="+", default=["uaenorth", "uaecentral"])
    azure.add_argument("--subscription", default=None, help="default: the Azure CLI's current subscription")
    azure.add_argument("--endpoint", default=None, help=f"Resource Manager endpoint (default: {ARM})")
    for p in (aws, azure):
        p.add_argument("--data-as-of", default=today, type=lambda s: datetime.date.fromisoformat(s).isoformat(),
                       help="the date the data describes, YYYY-MM-DD (default: today)")
        p.add_argument("--source", default=None, help="what answered, recorded in the snapshot")
        p.add_argument("--out", type=Path, default=AWS_DIR.parent, help="folder of the snapshots (default: "
                       "components/offerings)")
    args = parser.parse_args(argv)
    return run_aws(args) if args.cloud == "aws" else run_azure(args)


if __name__ == "__main__":
    raise SystemExit(main())

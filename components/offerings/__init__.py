"""What the clouds sell, where: snapshots of the clouds' own offering APIs, read without a network.

Each snapshot is JSON written by `tools/cloud_offerings.py` and records its `source` (what answered) and
`data_as_of` (the date the data describes); tests/components/clouds/test_offerings.py fails once one is older than
MAX_AGE_DAYS and prints the command that refreshes it.

- `aws/<region>.json`: the region's zone IDs and, per catalog instance type, the zone IDs that sell it
  (EC2 DescribeInstanceTypeOfferings by availability-zone-id). Zone IDs (`mec1-az1`) name the same place in
  every account; zone names (`me-central-1a`) are shuffled per account, so Sahab places subnets by ID.
- `aws/instance-types.json`: per catalog instance type, its vCPUs, memory, GPUs and their memory, EFA interfaces and
  network cards (DescribeInstanceTypes): the node shapes of components.accelerators.
- `azure/<location>.json`: per catalog VM size, its zones and restrictions (Resource SKUs API). None is in the
  repository: no public recording of the Resource SKUs API for uaenorth or uaecentral was found (README,
  "What the clouds sell"), so Azure sizes are judged live by `sahab doctor`, and a user with a subscription
  writes these files with the tool.

Pure data and lookups, no Pulumi.
"""

from __future__ import annotations

import datetime
import functools
import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
AWS_DIR = HERE / "aws"
AZURE_DIR = HERE / "azure"
INSTANCE_TYPES_FILE = AWS_DIR / "instance-types.json"
AZURE_SKUS_API = "2021-07-01"  # Microsoft.Compute/skus (REST reference "Resource Skus - List")
MAX_AGE_DAYS = 365
REFRESH = {
    "aws": "python tools/cloud_offerings.py aws --regions all   # with AWS credentials (or --endpoint-url of moto)",
    "azure": "python tools/cloud_offerings.py azure --locations uaenorth uaecentral   # after `az login`",
}


@dataclass(frozen=True)
class Snapshot:
    """One region's (AWS) or location's (Azure) offerings."""

    cloud: str
    region: str
    source: str
    data_as_of: datetime.date
    zones: tuple[str, ...]  # AWS: every zone ID of the region; Azure: zone numbers any size is offered in
    offered: dict[str, tuple[str, ...]]  # instance type / VM size -> zones that sell it (Azure: unrestricted ones)
    restricted: dict[str, str]  # Azure: VM size -> why the location refuses it; AWS: empty

    def zones_selling(self, instance_types: list[str] | tuple[str, ...]) -> tuple[str, ...]:
        """Zones that sell every one of the types (a node group launches any of them in any of its zones)."""
        sets = [set(self.offered.get(t, ())) for t in instance_types]
        return tuple(sorted(set.intersection(*sets))) if sets else ()

    def sells(self, instance_type: str) -> bool:
        return bool(self.offered.get(instance_type)) or (self.cloud == "azure" and instance_type in self.offered)


@dataclass(frozen=True)
class InstanceFacts:
    vcpus: int
    memory_mib: int
    gpus: int
    gpu: str | None
    gpu_memory_mib: int  # of one GPU, as EC2 reports it (an A10G: 22888, not the 24 GB on the box)
    efa_interfaces: int
    network_cards: int


@functools.cache
def snapshot(cloud: str, region: str) -> Snapshot | None:
    """The snapshot of a region/location, or None when the repository has none."""
    path = (AWS_DIR if cloud == "aws" else AZURE_DIR) / f"{region}.json"
    if not path.is_file():
        return None
    doc = json.loads(path.read_text())
    as_of = datetime.date.fromisoformat(doc["data_as_of"])
    if cloud == "aws":
        offered = {k: tuple(v) for k, v in doc["offerings"].items()}
        return Snapshot("aws", region, doc["source"], as_of, tuple(doc["zones"]), offered, {})
    offered, restricted = {}, {}
    for size, sku in doc["skus"].items():
        whole = [r for r in sku["restrictions"] if r["type"] == "Location"]
        if whole:
            restricted[size] = whole[0]["reason"]
            continue
        blocked = {z for r in sku["restrictions"] if r["type"] == "Zone" for z in r["zones"]}
        offered[size] = tuple(z for z in sku["zones"] if z not in blocked)
    zones = tuple(sorted({z for zs in offered.values() for z in zs}))
    return Snapshot("azure", region, doc["source"], as_of, zones, offered, restricted)


def snapshots(cloud: str) -> list[Snapshot]:
    folder = AWS_DIR if cloud == "aws" else AZURE_DIR
    names = sorted(p.stem for p in folder.glob("*.json") if p != INSTANCE_TYPES_FILE) if folder.is_dir() else []
    return [s for s in (snapshot(cloud, n) for n in names) if s is not None]


@functools.cache
def _facts() -> dict[str, InstanceFacts]:
    if not INSTANCE_TYPES_FILE.is_file():
        return {}
    doc = json.loads(INSTANCE_TYPES_FILE.read_text())
    return {name: InstanceFacts(f["vcpus"], f["memory_mib"], f["gpus"], f["gpu"], f["gpu_memory_mib"],
                                f["efa_interfaces"], f["network_cards"]) for name, f in doc["instance_types"].items()}


def aws_instance(instance_type: str) -> InstanceFacts | None:
    """EC2's facts about a catalog instance type, or None when the snapshot lacks it."""
    return _facts().get(instance_type)


def regions_selling(cloud: str, instance_types: list[str]) -> list[str]:
    """Regions whose snapshot sells at least one of the types."""
    return [s.region for s in snapshots(cloud) if any(s.sells(t) for t in instance_types)]

"""Where each cloud pool's nodes land (`readiness.pools`) and whether those zones sell its instance types.

AWS: a managed node group launches in its subnets' zones, so its zones are the zone IDs of the subnets it
names: the Subnet resources it depends on, or, for subnet ids read from another stack, the Subnet resources of
that stack's plan with those ids. A subnet placed by zone name only has no zone ID offline (names map to IDs
per account) and is left out. Self-managed Auto Scaling groups are judged the same way. Azure: an agent pool's
`availabilityZones` (none: regional). A zone that does not sell one of the pool's types, per the region's
offerings snapshot (components.offerings), is a problem: the cloud would refuse the pool or never launch there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sahab.components import offerings
from sahab.engine import PlannedResource
from sahab.readiness.clusters import adapter
from sahab.readiness.common import get, unknown
from sahab.readiness.readiness_types import Cluster, Problem

SUBNET = "aws:ec2/subnet:Subnet"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
AUTOSCALING_GROUP = "aws:autoscaling/group:Group"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"


@dataclass(frozen=True)
class CloudPool:
    cluster: str
    pool: str
    cloud: str
    region: str
    instance_types: tuple[str, ...]
    zones: tuple[str, ...]

    def contract(self) -> dict[str, Any]:
        return {"cluster": self.cluster, "pool": self.pool, "cloud": self.cloud, "region": self.region,
                "instance_types": list(self.instance_types), "zones": list(self.zones)}


class Index:
    """Lookups over the plan and the plans it references: resources by URN, subnets by id."""

    def __init__(self, resources: list[PlannedResource]):
        self.by_urn = {r.urn: r for r in resources}
        self.subnets = {r.id: r for r in resources if r.type == SUBNET and r.id and not unknown(r.id)}
        self.templates = {r.id: r for r in resources if r.type == LAUNCH_TEMPLATE and r.id}

    def region(self, res: PlannedResource, key: str = "region") -> str:
        """The resource's own region/location, else its provider's."""
        own = res.inputs.get(key)
        provider = self.by_urn.get(res.provider or "")
        found = own or (provider.inputs.get(key) if provider else None)
        return "" if found is None or unknown(found) else str(found)

    def subnet_zones(self, res: PlannedResource, key: str) -> tuple[str, ...]:
        subnets = [self.by_urn[u] for u in res.property_dependencies.get(key, []) if u in self.by_urn]
        named = res.inputs.get(key)
        if isinstance(named, list):
            subnets += [self.subnets[i] for i in named if isinstance(i, str) and i in self.subnets]
        zones = {str(s.inputs.get("availabilityZoneId") or s.outputs.get("availabilityZoneId") or "")
                 for s in subnets if s.type == SUBNET}
        return tuple(sorted(z for z in zones if z and not unknown(z)))


def pools(cluster: Cluster, mine: set[str], index: Index) -> tuple[list[CloudPool], list[Problem]]:
    """The cloud pools of `cluster` this plan declares, with their zones, and each zone that does not sell a
    pool's instance type."""
    found, problems = [], []
    for pool in cluster.pools:
        res = index.by_urn.get(pool.source)
        if res is None or res.urn not in mine:
            continue
        entry = adapter(cluster.kind).cloud_pool(cluster, pool, res, index)  # None: not a cloud's pool
        if entry is None:
            continue
        found.append(entry)
        problems += _unsold(entry, pool.object)
    return found, problems


def autoscaling_groups(resources: list[PlannedResource], mine: set[str],
                       index: Index) -> tuple[list[CloudPool], list[Problem]]:
    """Self-managed Auto Scaling groups (not a managed node group's): the types their launch template or mixed
    instances policy names, in their subnets' zones."""
    found, problems = [], []
    for res in resources:
        if res.type != AUTOSCALING_GROUP or res.urn not in mine:
            continue
        types = [o.get("instanceType") for o in get(res.inputs, "mixedInstancesPolicy", "launchTemplate",
                                                     "overrides", default=[]) or [] if isinstance(o, dict)]
        template = index.templates.get(str(get(res.inputs, "launchTemplate", "id") or ""))
        if not types and template is not None:
            types = [template.inputs.get("instanceType")]
        tags = {str(t.get("key")): t.get("value") for t in res.inputs.get("tags") or [] if isinstance(t, dict)}
        cluster = next((k.rsplit("/", 1)[-1] for k in tags if k.startswith("kubernetes.io/cluster/")), "")
        entry = CloudPool(cluster, res.name, "aws", index.region(res), known(types),
                          index.subnet_zones(res, "vpcZoneIdentifiers"))
        found.append(entry)
        problems += _unsold(entry, f"auto scaling group {res.name}")
    return found, problems


def known(values: list[Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in values if v and not unknown(v))


def _unsold(entry: CloudPool, what: str) -> list[Problem]:
    snap = offerings.snapshot(entry.cloud, entry.region) if entry.region else None
    if snap is None:
        return []
    families = {t.partition(".")[0] for t in snap.offered} if entry.cloud == "aws" else set(snap.offered)
    problems = []
    for kind in entry.instance_types:
        if (kind.partition(".")[0] if entry.cloud == "aws" else kind) not in families and kind not in snap.restricted:
            continue  # a type the snapshot does not cover: no verdict
        selling = snap.offered.get(kind, ())
        unsold = [z for z in entry.zones if z not in selling]
        if kind in snap.restricted:
            problems.append(Problem(entry.cluster, what, f"{kind} is refused in {entry.region}: "
                                                         f"{snap.restricted[kind]}"))
        elif unsold or not selling:
            problems.append(Problem(entry.cluster, what, f"{kind} is not sold in {', '.join(unsold) or entry.region} "
                                                         f"(sold in {', '.join(selling) or 'no zone'} per the "
                                                         f"offerings of {snap.data_as_of.isoformat()}); the cloud "
                                                         f"would refuse the pool or never launch there"))
    return problems

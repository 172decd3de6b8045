"""Readiness: would the planned fleet come up? Judged from the plan the way the cluster would decide.

`judge(resources)` finds the clusters of the plan (per-kind adapters: EKS node groups, AKS agent pools, Sahab's
on-prem pools), the Kubernetes objects on each (through their provider), and runs the checks: a CNI; every pod fits
some pool (taints, selectors, affinity, allocatable CPU/memory/GPUs, MIG and time-slicing); every volume claim's
class exists and is provisioned; scale-from-zero pools have an autoscaler; NetworkPolicies have an enforcer;
Kueue-queued jobs have a queue whose quota admits them; every pod (and a provisioner's helper) runs as a
ServiceAccount that exists; every image a Helm release's chart would pull is a valid reference held by the stack's
seed list (`seeded`: the seed list's references per cluster kind, when the stack is a Sahab fleet); every cloud
pool's zones sell its instance types (`pools`, sahab.readiness.zones); and over the hybrid network every site
reaches the clouds it links to, the deployer and MultiKueue managers reach the API servers and registries they need
(sahab/readiness/reach.py). Only clusters with nodes in the plan and something of this plan on them are judged; a
plan with none is ready (nothing to judge).

Resources of stacks this plan references (a burst stack's pools join the prod stack's clusters) may be passed as
`referenced`: their clusters' add-ons and objects count, their own pools and workloads are not judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sahab.engine import PlannedResource
from sahab.readiness import accounts, agents, checks, eks, fences, gpus, pulls, reach, zones
from sahab.readiness.clusters import discover
from sahab.readiness.readiness_types import Placement, Problem, Readiness
from sahab.readiness.workloads import pod_groups


def judge(resources: list[PlannedResource], referenced: Iterable[PlannedResource] = (),
          seeded: Mapping[str, set[str]] | None = None) -> Readiness:
    mine = {r.urn for r in resources}
    everything = [*resources, *(r for r in referenced if r.urn not in mine)]
    problems: list[Problem] = []
    placements: list[Placement] = []
    index = zones.Index(everything)
    pools, problems = zones.autoscaling_groups(everything, mine, index)
    for cluster in discover(everything):
        ours = any(p.source in mine for p in cluster.pools) or any(o.urn in mine for o in cluster.objects)
        if not cluster.pools or not ours:
            continue
        placed_pools, misplaced = zones.pools(cluster, mine, index)
        pools += placed_pools
        problems += misplaced
        gpus.advertise(cluster)
        eks.advertise_efa(cluster)
        # Cluster-wide checks belong to the stack that builds the cluster or installs things on it.
        if (cluster.anchor is not None and cluster.anchor.urn in mine) or any(o.urn in mine for o in cluster.objects):
            problems += checks.cni(cluster)
        problems += checks.scale_from_zero(cluster, mine)
        problems += agents.label(cluster, mine)  # after the devices: an agent asking for GPUs must fit them
        groups = [g for g in pod_groups(cluster) if g.resource is not None and g.resource.urn in mine]
        for group in groups:
            placed, misfit = checks.place(cluster, group)
            placements += placed
            problems += misfit
            names = {p.pool for p in placed}
            problems += checks.kueue(cluster, group, [p for p in cluster.pools if p.name in names])
        problems += checks.storage(cluster, groups, mine)
        problems += checks.network_policies(cluster, mine)
        problems += fences.check(cluster, mine)
        problems += accounts.check(cluster, mine)
        problems += pulls.check(cluster, mine, seeded)
    problems += reach.judge(everything, mine)
    return Readiness(problems, placements, pools)

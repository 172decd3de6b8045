"""Small valid fleets to start tests from."""

import copy
import functools
from pathlib import Path

import yaml
from sahab.components.kinds import get

ROOT = Path(__file__).resolve().parents[1]


def stack_fleet(stack: str) -> dict:
    """The `sahab:fleet` value of one of the project's stacks, as plain data (a copy of its own)."""
    return copy.deepcopy(_stack_config(stack)["sahab:fleet"])


@functools.cache
def _stack_config(stack: str) -> dict:
    """A stack file's config, parsed once per process (the fuzz tests ask for a fleet in every example)."""
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]


def hybrid_fleet() -> dict:
    return {
        "environment": "dev",
        "clouds": {"aws": {"region": "me-central-1"}, "azure": {"location": "uaenorth"}},
        "sites": [{"name": "auh", "emirate": "abu-dhabi", "city": "Abu Dhabi",
                   "hosts": [{"name": "cp1", "address": "10.0.0.1", "cpus": 16, "memory_gib": 64},
                             {"name": "gpu1", "address": "10.0.0.2", "cpus": 224, "memory_gib": 2048,
                              "data_disk": "/dev/disk/by-id/nvme-gpu1-data",
                              "gpus": {"accelerator": "h100", "count": 1}}]}],
        "clusters": [{"name": "onprem", "kind": "onprem", "site": "auh", "control_plane_hosts": ["cp1"]},
                     {"name": "eks", "kind": "eks"}, {"name": "aks", "kind": "aks"}],
        "node_pools": [{"name": "gpu", "cluster": "onprem", "accelerator": "h100", "hosts": ["gpu1"]},
                       {"name": "eks-gpu", "cluster": "eks", "accelerator": "a10g", "min_size": 0, "max_size": 4},
                       {"name": "aks-cpu", "cluster": "aks", "min_size": 1, "max_size": 3, "desired_size": 2}],
        "storage": {"buckets": [{"name": "data", "cloud": "aws"}, {"name": "azdata", "cloud": "azure"}]},
    }


def prod_with_only(*clusters: str) -> dict:
    """prod's fleet cut down to the named clusters: their pools, the sites they run on (links only to the clouds
    kept), the clouds, registries and buckets they use; every other setting as prod has it.

    A test of one prod setting rarely needs all four clusters, and each costs seconds of every plan (an AKS
    cluster most: about a third of prod's)."""
    fleet = stack_fleet("prod")
    unknown = set(clusters) - {c["name"] for c in fleet["clusters"]}
    assert not unknown, f"prod has no cluster {sorted(unknown)}"
    fleet["clusters"] = [c for c in fleet["clusters"] if c["name"] in clusters]
    fleet["node_pools"] = [p for p in fleet["node_pools"] if p["cluster"] in clusters]
    kinds = {c["kind"] for c in fleet["clusters"]}
    clouds = {get(kind).cloud for kind in kinds} - {None}
    sites = {c.get("site") for c in fleet["clusters"]}
    fleet["sites"] = [s for s in fleet["sites"] if s["name"] in sites]
    for s in fleet["sites"]:
        s["links"] = [link for link in s.get("links", []) if link["cloud"] in clouds]
    if fleet.get("deployer", {}).get("site") not in sites:
        fleet.pop("deployer", None)
    fleet["clouds"] = {k: v for k, v in fleet["clouds"].items() if k in clouds}
    fleet["registries"] = {k: v for k, v in fleet["registries"].items() if k in kinds}
    fleet["storage"]["buckets"] = [b for b in fleet["storage"]["buckets"] if b["cloud"] in clouds]
    return fleet

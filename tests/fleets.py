"""Small valid fleets to start tests from."""

import copy
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def stack_fleet(stack: str) -> dict:
    """The `sahab:fleet` value of one of the project's stacks, as plain data."""
    doc = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())
    return copy.deepcopy(doc["config"]["sahab:fleet"])


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

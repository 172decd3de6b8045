"""Small hybrid fleets for the network tests: one to three sites, either cloud, VPN or an existing circuit."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from sahab.engine import Plan, plan
from tests.fleets import ROOT

DX_GATEWAY = "0f2d7c4e-1a2b-4c3d-8e9f-0123456789ab"
ER_CIRCUIT = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/circuits/providers/"
              "Microsoft.Network/expressRouteCircuits/auh-er")


def site(name: str, second_octet: int, *, links: list[dict] | None = None, gateway: dict | None = None,
         **extra: Any) -> dict:
    """A site at 10.<n>.0.0/16 with one control-plane host and one CPU host, its gateway host at .0.2."""
    base = f"10.{second_octet}"
    return {
        "name": name, "emirate": "abu-dhabi", "city": "Abu Dhabi", "networks": [f"{base}.0.0/16"],
        "hosts": [{"name": f"{name}-cp1", "address": f"{base}.0.10", "cpus": 8, "memory_gib": 32},
                  {"name": f"{name}-cpu1", "address": f"{base}.2.11", "cpus": 32, "memory_gib": 128}],
        "gateway": gateway if gateway is not None else {
            "public_ip": f"198.51.100.{second_octet}", "host": {"name": f"{name}-vpn1", "address": f"{base}.0.2"}},
        "links": links if links is not None else [{"cloud": "aws"}],
        **extra,
    }


def fleet(*sites: dict, clouds: tuple[str, ...] = ("aws",), deployer: dict | None = None, **extra: Any) -> dict:
    """On-prem clusters on each site, an EKS and/or AKS cluster with one small pool, no monitoring."""
    config: dict[str, Any] = {
        "name": "net", "environment": "dev", "monitoring": {"enabled": False},
        "clouds": {}, "sites": list(sites), "clusters": [], "node_pools": [],
    }
    if "aws" in clouds:
        config["clouds"]["aws"] = {"region": "me-central-1", "vpc_cidr": "10.40.0.0/16", "az_count": 2}
        config["clusters"].append({"name": "eks", "kind": "eks"})
        config["node_pools"].append({"name": "eks-cpu", "cluster": "eks", "instance_type": "m6i.xlarge"})
    if "azure" in clouds:
        config["clouds"]["azure"] = {"location": "uaenorth", "vnet_cidr": "10.50.0.0/16"}
        config["clusters"].append({"name": "aks", "kind": "aks"})
        config["node_pools"].append({"name": "aks-cpu", "cluster": "aks"})
    for s in sites:
        config["clusters"].append({"name": f"{s['name']}-k8s", "kind": "onprem", "site": s["name"],
                                   "control_plane_hosts": [f"{s['name']}-cp1"]})
        config["node_pools"].append({"name": f"{s['name']}-cpu", "cluster": f"{s['name']}-k8s",
                                     "hosts": [f"{s['name']}-cpu1"]})
    if deployer is not None:
        config["deployer"] = deployer
    return copy.deepcopy({**config, **extra})


def planned(directory: Path, config: dict, stack: str = "t") -> Plan:
    """Plan a fleet through the project's own program, as `sahab plan` would."""
    (directory / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {Path(ROOT) / 'stacks'}\n")
    (directory / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump({"config": {"sahab:fleet": config}}))
    return plan(directory, stack)

"""On-prem pools and the GPUs their servers declare: a pool whose accelerator its hosts do not carry is refused
by the schema, naming the pool and the hosts, before it could surface as a quota or scheduling puzzle."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from tests.fleets import ROOT, hybrid_fleet

# hybrid_fleet(): site auh with hosts cp1 (no GPUs) and gpu1 (1 h100); pool `gpu` (onprem, h100) on gpu1.


def _site() -> dict:
    data = hybrid_fleet()
    hosts = data["sites"][0]["hosts"]
    hosts.append({"name": "gpu2", "address": "10.0.0.3", "cpus": 224, "memory_gib": 2048,
                  "gpus": {"accelerator": "h100", "count": 1}})
    hosts.append({"name": "cpu1", "address": "10.0.0.4", "cpus": 64, "memory_gib": 256})
    hosts.append({"name": "cpu2", "address": "10.0.0.5", "cpus": 64, "memory_gib": 256})
    return data


def refused(data: dict) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_fleet(data)
    assert "\n" not in str(info.value)
    return info.value


def test_a_gpu_pool_on_hosts_that_declare_no_gpus_is_refused_naming_the_pool_and_hosts():
    data = _site()
    data["node_pools"][0].update(accelerator="h200", hosts=["cpu1", "cpu2"])
    err = refused(data)
    assert err.path == "sahab:fleet.node_pools[0].hosts"
    assert "pool gpu asks for h200 GPUs" in err.message and "hosts cpu1, cpu2 declare no GPUs" in err.message
    assert "sahab:fleet.sites[0].hosts[].gpus" in err.message


def test_one_host_without_gpus_in_a_gpu_pool_is_named_alone():
    data = _site()
    data["node_pools"][0]["hosts"] = ["gpu1", "cpu1", "gpu2"]
    err = refused(data)
    assert "hosts cpu1 declare no GPUs" in err.message and "gpu2" not in err.message


def test_a_pool_whose_hosts_carry_another_gpu_model_is_refused():
    data = _site()
    data["node_pools"][0]["accelerator"] = "a100"
    err = refused(data)
    assert err.path == "sahab:fleet.node_pools[0].accelerator"
    assert "pool gpu asks for a100 GPUs but hosts gpu1 (h100) carry other GPUs" in err.message


def test_a_cpu_pool_on_gpu_hosts_is_refused():
    data = _site()
    data["node_pools"][0].update(accelerator="cpu", hosts=["gpu2"])
    data["node_pools"].append({"name": "gpu-b", "cluster": "onprem", "accelerator": "h100", "hosts": ["gpu1"]})
    err = refused(data)
    assert err.path == "sahab:fleet.node_pools[0].accelerator"
    assert "pool gpu is a cpu pool but its hosts gpu2 (1 h100) carry GPUs" in err.message


def test_hosts_with_different_gpu_counts_cannot_share_a_pool():
    data = _site()
    data["sites"][0]["hosts"][2]["gpus"]["count"] = 8
    data["node_pools"][0]["hosts"] = ["gpu1", "gpu2"]
    err = refused(data)
    assert err.path == "sahab:fleet.node_pools[0].hosts"
    assert "gpu1 (1), gpu2 (8)" in err.message


def test_gpus_per_node_must_match_what_the_hosts_carry():
    data = _site()
    data["node_pools"][0]["gpus_per_node"] = 8
    err = refused(data)
    assert err.path == "sahab:fleet.node_pools[0].gpus_per_node"
    assert "hosts gpu1 carry 1; allowed: 1" in err.message


def test_gpus_per_node_comes_from_the_hosts():
    data = _site()
    for host in data["sites"][0]["hosts"][1:3]:
        host["gpus"] = {"accelerator": "h100", "count": 8}
    data["node_pools"][0]["hosts"] = ["gpu1", "gpu2"]
    assert parse_fleet(data).node_pools[0].gpus_per_node == 8


@pytest.mark.parametrize(("gpus", "field", "says"), [
    ({"accelerator": "cpu", "count": 1}, "accelerator", "'h100', 'h200', 'a100', 'l40s', 'a10g' or 't4'"),
    ({"accelerator": "h100", "count": 0}, "count", "greater than or equal to 1"),
    ({"accelerator": "h100"}, "count", "required"),
    ({"accelerator": "h100", "count": 1, "vendor": "x"}, "vendor", "allowed: accelerator, count"),
])
def test_a_malformed_gpu_declaration_is_refused_at_its_field(gpus, field, says):
    data = _site()
    data["sites"][0]["hosts"][1]["gpus"] = gpus
    err = refused(data)
    assert err.path == f"sahab:fleet.sites[0].hosts[1].gpus.{field}" and says in err.message


def test_the_cli_refuses_the_stack_with_one_error_line(tmp_path):
    """`sahab plan` on prod with its H100 servers undeclared: exit 2 and one `error:` line, before any program."""
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    for host in doc["config"]["sahab:fleet"]["sites"][0]["hosts"]:
        host.pop("gpus", None)
    program = tmp_path / "program"
    (program / "stacks").mkdir(parents=True)
    (program / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (program / "stacks" / "Pulumi.prod.yaml").write_text(yaml.safe_dump(doc))
    done = subprocess.run([sys.executable, "-m", "sahab", "registry", "list", "--stack", "prod", "--program",
                           str(program)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "node_pools[0].hosts: pool auh-h100 asks for h100 GPUs but hosts auh-gpu1, auh-gpu2 declare no GPUs" \
        in done.stderr

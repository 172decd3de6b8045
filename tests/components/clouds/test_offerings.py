"""What the clouds sell: the offering snapshots (sourced, dated, regenerable), and pools placed only where their
instance type is sold, with refusals at config time naming what is wrong and what would do."""

import datetime
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from sahab.components import offerings
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from tests.fleets import stack_fleet

ROOT = Path(__file__).resolve().parents[3]


# ---- the snapshots --------------------------------------------------------------------------------------------
def test_every_snapshot_says_where_it_comes_from_and_is_younger_than_the_stated_age():
    today = datetime.date.today()
    documents = [*sorted((offerings.AWS_DIR).glob("*.json")), *sorted(offerings.AZURE_DIR.glob("*.json"))]
    assert documents
    for path in documents:
        doc = json.loads(path.read_text())
        assert doc["source"], path
        age = (today - datetime.date.fromisoformat(doc["data_as_of"])).days
        assert age <= offerings.MAX_AGE_DAYS, (
            f"{path.relative_to(ROOT)} describes {doc['data_as_of']}, {age} days ago (more than "
            f"{offerings.MAX_AGE_DAYS}): refresh it: {offerings.REFRESH[doc['cloud']]}")


def test_the_snapshot_is_what_ec2s_api_answers(tmp_path, monkeypatch):
    """Written by the tool from the EC2 API (moto's, on loopback), not by hand: regenerating gives the same file."""
    pytest.importorskip("moto")
    from moto.server import ThreadedMotoServer

    from tools.ports import free_port

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        committed = json.loads((offerings.AWS_DIR / "me-central-1.json").read_text())
        env = {"PATH": "/usr/bin:/bin", "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
        done = subprocess.run([sys.executable, "tools/cloud_offerings.py", "aws", "--regions", "me-central-1",
                               "--endpoint-url", f"http://127.0.0.1:{port}", "--data-as-of", committed["data_as_of"],
                               "--source", committed["source"], "--out", str(tmp_path)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "aws" / "me-central-1.json").read_text() == (offerings.AWS_DIR / "me-central-1.json").read_text()
    written = json.loads((tmp_path / "aws" / "instance-types.json").read_text())["instance_types"]
    facts = json.loads(offerings.INSTANCE_TYPES_FILE.read_text())["instance_types"]
    assert written == {name: facts[name] for name in written}


def test_me_central_1_as_ec2_sells_it():
    snap = offerings.snapshot("aws", "me-central-1")
    assert snap.zones == ("mec1-az1", "mec1-az2", "mec1-az3")
    assert snap.offered["p5en.48xlarge"] == ("mec1-az1", "mec1-az3")
    assert snap.zones_selling(["g5.12xlarge", "g6e.12xlarge"]) == ("mec1-az1", "mec1-az2")
    assert not snap.sells("g4dn.xlarge") and not snap.sells("c6i.large") and not snap.sells("r7i.large")
    assert offerings.aws_instance("p5en.48xlarge").efa_interfaces == 16
    assert offerings.aws_instance("g6e.12xlarge").efa_interfaces == 1


# ---- config time: refusals ------------------------------------------------------------------------------------
def with_pool(**pool) -> dict:
    fleet = stack_fleet("prod")
    fleet["node_pools"].append({"name": "extra", "cluster": "eks-main", **pool})
    return fleet


def refused(**pool) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_fleet(with_pool(**pool))
    return caught.value


def program(tmp_path: Path, fleet: dict) -> Path:
    (tmp_path / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {ROOT / 'stacks'}\n")
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump({"config": {"sahab:fleet": fleet}}))
    return tmp_path


@pytest.mark.parametrize(("pool", "path", "says"), [
    ({"accelerator": "t4"}, "node_pools[8].accelerator", "'t4' is not offered in me-central-1"),
    ({"instance_type": "c6i.2xlarge"}, "node_pools[8].instance_type", "'c6i.2xlarge' is not offered in me-central-1"),
])
def test_what_the_region_does_not_sell_is_refused_at_exit_2_with_one_line(tmp_path, pool, path, says):
    folder = program(tmp_path, with_pool(**pool))
    done = subprocess.run([sys.executable, "-m", "sahab", "plan", "--program", str(folder), "--stack", "t", "-q"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: sahab:fleet.{path}: {says}") and "Traceback" not in done.stderr


@pytest.mark.parametrize(("cluster", "pool", "path", "says"), [
    ("eks-main", {"accelerator": "l40s", "instance_type": "g6e.12xlarge", "mig_strategy": "single"},
     "node_pools[8].mig_strategy", "l40s GPUs have no MIG; allowed: none (MIG is on a100, h100, h200 only)"),
    ("aks-main", {"zones": ["4"]}, "node_pools[8].zones",
     "4 is not an availability zone of uaenorth; allowed: zone numbers 1, 2, 3"),
    ("aks-main", {"instance_type": "Standard_D8ps_v5"}, "node_pools[8].instance_type",
     "'Standard_D8ps_v5' is not in the hardware catalog; allowed for cpu: a size of the series Dv2/DSv2, Dv3/Dsv3,"),
])
def test_cloud_pool_settings_the_hardware_cannot_do_are_refused_at_exit_2(tmp_path, cluster, pool, path, says):
    fleet = stack_fleet("prod")
    fleet["node_pools"].append({"name": "extra", "cluster": cluster, "max_size": 1, **pool})
    done = subprocess.run([sys.executable, "-m", "sahab", "plan", "--program", str(program(tmp_path, fleet)),
                           "--stack", "t", "-q"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: sahab:fleet.{path}: {says}")


def test_an_accelerator_no_allowed_region_sells_names_the_regions_that_do():
    err = refused(accelerator="t4")
    assert "no allowed region offers it (me-central-1, uaenorth, uaecentral); regions that do: " in err.message
    assert "me-south-1" in offerings.regions_selling("aws", ["g4dn.xlarge"])


def test_a_type_the_region_does_not_sell_names_what_it_sells_for_the_accelerator():
    err = refused(instance_type="c6i.2xlarge")
    assert "offered there for cpu: sizes of m6i, m7i, c7i, r6i, m5, c5, r5" in err.message


def test_h200_defaults_to_p5en_and_is_placed_where_it_is_sold():
    single = parse_fleet(with_pool(accelerator="h200", max_size=1)).node_pools[-1]
    assert single.instance_type == "p5en.48xlarge" and single.zones == ("mec1-az1", "mec1-az3") and not single.efa
    fabric = parse_fleet(with_pool(accelerator="h200", max_size=4)).node_pools[-1]
    assert fabric.efa and fabric.zones == ("mec1-az1",)  # one zone for its cluster placement group
    named = parse_fleet(with_pool(accelerator="h200", max_size=4, zones=["mec1-az3"])).node_pools[-1]
    assert named.zones == ("mec1-az3",)


def test_zones_that_do_not_sell_the_type_are_refused_naming_pool_type_offered_and_wanted():
    err = refused(accelerator="h200", zones=["mec1-az2"])
    assert err.path == "sahab:fleet.node_pools[8].zones"
    assert err.message.startswith("node pool extra: p5en.48xlarge is offered in me-central-1 zones mec1-az1, "
                                  "mec1-az3; zones wanted: mec1-az2")


def test_a_two_zone_vpc_spans_the_zones_that_serve_most_pools_and_pools_use_those_that_sell_their_type():
    fleet = stack_fleet("prod")
    fleet["clouds"]["aws"]["az_count"] = 2
    fleet["node_pools"] = [p for p in fleet["node_pools"] if p["cluster"] != "eks-main"] + [
        {"name": "cpu", "cluster": "eks-main", "instance_type": "r5.large"},
        {"name": "l40s", "cluster": "eks-main", "accelerator": "l40s", "max_size": 1},
        {"name": "h200", "cluster": "eks-main", "accelerator": "h200", "max_size": 1}]
    placed = {p.name: p.zones for p in parse_fleet(fleet).node_pools}
    # az1 sells all three types, az2 and az3 two each: az1 and az2 (the lower ID)
    assert placed == {**placed, "cpu": ("mec1-az1", "mec1-az2"), "l40s": ("mec1-az1", "mec1-az2"),
                      "h200": ("mec1-az1",)}
    fleet["node_pools"][-1]["zones"] = ["mec1-az3"]  # a named zone is always one of the VPC's
    placed = {p.name: p.zones for p in parse_fleet(fleet).node_pools}
    assert placed["h200"] == ("mec1-az3",) and placed["l40s"] == ("mec1-az1",)
    fleet["node_pools"][-2]["zones"] = ["mec1-az2"]
    fleet["node_pools"][-3]["zones"] = ["mec1-az1"]
    with pytest.raises(ConfigError) as caught:
        parse_fleet(fleet)
    assert caught.value.path == "sahab:fleet.clouds.aws.az_count" and "the VPC spans 2" in caught.value.message


def test_an_unknown_zone_id_is_refused_with_the_regions_zones():
    err = refused(accelerator="cpu", zones=["mec1-az9"])
    assert "mec1-az9 is not a zone ID of me-central-1; its zones: mec1-az1, mec1-az2, mec1-az3" in err.message


# ---- restricted locations -------------------------------------------------------------------------------------
def test_a_cluster_in_uaecentral_needs_region_access_granted():
    fleet = stack_fleet("prod")
    fleet["clusters"][3]["location"] = "uaecentral"
    with pytest.raises(ConfigError) as caught:
        parse_fleet(fleet)
    assert caught.value.path == "sahab:fleet.clusters[3].region_access_granted"
    assert "only on request" in caught.value.message
    fleet["clusters"][3]["region_access_granted"] = True
    parsed = parse_fleet(fleet)
    assert all(not p.zones for p in parsed.node_pools if p.cluster == "aks-main")  # UAE Central has no zones


def test_region_access_granted_elsewhere_is_refused():
    fleet = stack_fleet("prod")
    fleet["clusters"][2]["region_access_granted"] = True
    with pytest.raises(ConfigError, match="applies to clusters in a restricted location"):
        parse_fleet(fleet)


# ---- Azure sizes ----------------------------------------------------------------------------------------------
def test_an_infiniband_nd_size_is_refused_at_exit_2_saying_why(tmp_path):
    fleet = stack_fleet("prod")
    fleet["node_pools"].append({"name": "nd", "cluster": "aks-main", "accelerator": "h100",
                                "instance_type": "Standard_ND96isr_H100_v5", "max_size": 1})
    done = subprocess.run([sys.executable, "-m", "sahab", "plan", "--program", str(program(tmp_path, fleet)),
                           "--stack", "t", "-q"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: sahab:fleet.node_pools[8].instance_type: 'Standard_ND96isr_H100_v5' joins "
                           "nodes over InfiniBand")
    assert "Network Operator" in line and "Standard_NC40ads_H100_v5" in line


def test_aks_pools_take_the_zones_the_location_sells_their_size_in(azure_offerings):
    azure_offerings("uaenorth", {
        "Standard_NC40ads_H100_v5": {"family": "f", "vcpus": 40, "zones": ["1", "2", "3"], "restrictions": [
            {"type": "Zone", "reason": "NotAvailableForSubscription", "zones": ["3"], "locations": ["uaenorth"]}]},
        "Standard_D8s_v5": {"family": "d", "vcpus": 8, "zones": ["1", "2", "3"], "restrictions": []}})
    placed = {p.name: p.zones for p in parse_fleet(stack_fleet("prod")).node_pools}
    assert placed["aks-h100"] == ("1", "2") and placed["aks-cpu"] == ("1", "2", "3")
    with pytest.raises(ConfigError, match="Standard_NC40ads_H100_v5 is offered in uaenorth zones 1, 2; zones "
                                          "wanted: 3"):
        fleet = stack_fleet("prod")
        next(p for p in fleet["node_pools"] if p["name"] == "aks-h100")["zones"] = ["3"]
        parse_fleet(fleet)


@pytest.mark.parametrize(("zones", "says"), [
    (["4"], "4 is not an availability zone of uaenorth"), (["1", "7"], "7 is not an availability zone of uaenorth"),
    (["mec1-az1"], "mec1-az1 is not an availability zone of uaenorth"),
    (["5", "mec1-az2"], "5, mec1-az2 are not availability zones of uaenorth"),
])
def test_aks_zones_are_the_locations_zone_numbers_without_a_snapshot(zones, says):
    """Azure's SKUs are not in the repository, so only the location's zones (1 to 3 in UAE North) judge a pool's."""
    assert offerings.snapshot("azure", "uaenorth") is None
    fleet = stack_fleet("prod")
    fleet["node_pools"].append({"name": "extra", "cluster": "aks-main", "max_size": 1, "zones": zones})
    with pytest.raises(ConfigError) as caught:
        parse_fleet(fleet)
    assert caught.value.path == "sahab:fleet.node_pools[8].zones"
    assert caught.value.message.startswith(says) and caught.value.message.endswith("allowed: zone numbers 1, 2, 3")
    fleet["node_pools"][-1]["zones"] = ["1", "3"]
    assert parse_fleet(fleet).node_pools[-1].zones == ("1", "3")


def test_aks_zones_outside_the_location_are_refused_before_the_snapshot_is_asked(azure_offerings):
    azure_offerings("uaenorth", {
        "Standard_NC40ads_H100_v5": {"family": "f", "vcpus": 40, "zones": ["1", "2", "3"], "restrictions": []},
        "Standard_D8s_v5": {"family": "d", "vcpus": 8, "zones": ["1", "2", "3"], "restrictions": []}})
    fleet = stack_fleet("prod")
    fleet["node_pools"].append({"name": "extra", "cluster": "aks-main", "max_size": 1, "zones": ["2", "4"]})
    with pytest.raises(ConfigError, match=r"node_pools\[8\]\.zones: 4 is not an availability zone of uaenorth"):
        parse_fleet(fleet)
    fleet["node_pools"][-1]["zones"] = ["2"]
    assert parse_fleet(fleet).node_pools[-1].zones == ("2",)


@pytest.mark.parametrize(("vm_size", "accepted"), [
    ("Standard_D14_v2", True), ("Standard_D8ls_v5", True), ("Standard_E96ads_v5", True), ("Standard_F72s_v2", True),
    ("Standard_D8ps_v5", False), ("Standard_E96ias_v5", False), ("Standard_D8as_v6", False), ("Standard_B2s", False),
])
def test_aks_cpu_pools_take_sizes_of_the_series_the_catalog_knows(vm_size, accepted):
    fleet = stack_fleet("prod")
    fleet["node_pools"].append({"name": "extra", "cluster": "aks-main", "max_size": 1, "instance_type": vm_size})
    if accepted:
        assert parse_fleet(fleet).node_pools[-1].instance_type == vm_size
        return
    with pytest.raises(ConfigError) as caught:
        parse_fleet(fleet)
    assert caught.value.path == "sahab:fleet.node_pools[8].instance_type"
    assert "not in the hardware catalog; allowed for cpu: a size of the series" in caught.value.message
    assert "Dlsv5/Dldsv5" in caught.value.message and "Arm p sizes" in caught.value.message


# ---- repeated zones -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("cluster", "pool", "says"), [
    ("aks-main", {"zones": ["1", "1"]},
     "1 is listed more than once; allowed: each zone once, of uaenorth's zone numbers 1, 2, 3"),
    ("aks-main", {"zones": ["2", "1", "2", "1", "3"]},
     "1, 2 are listed more than once; allowed: each zone once, of uaenorth's zone numbers 1, 2, 3"),
    ("eks-main", {"instance_type": "m6i.large", "zones": ["mec1-az2", "mec1-az2"]},
     "mec1-az2 is listed more than once; allowed: each zone once, of me-central-1's zone IDs mec1-az1, mec1-az2, "
     "mec1-az3"),
    # An EFA pool's one-zone rule would otherwise speak first, about a pool that does name one zone.
    ("eks-main", {"accelerator": "h200", "max_size": 4, "zones": ["mec1-az1", "mec1-az1"]},
     "mec1-az1 is listed more than once; allowed: each zone once, of me-central-1's zone IDs"),
])
def test_a_zone_listed_twice_is_refused_naming_it_and_what_is_allowed(cluster, pool, says):
    fleet = stack_fleet("prod")
    fleet["node_pools"].append({"name": "extra", "cluster": cluster, "max_size": 1, **pool})
    with pytest.raises(ConfigError) as caught:
        parse_fleet(fleet)
    assert caught.value.path == "sahab:fleet.node_pools[8].zones"
    assert caught.value.message.startswith(says)


@pytest.mark.parametrize(("cluster", "zones", "says"), [
    ("aks-main", ["1", "1"], "1 is listed more than once; allowed: each zone once"),
    ("eks-main", ["mec1-az1", "mec1-az1"], "mec1-az1 is listed more than once; allowed: each zone once"),
])
def test_a_zone_listed_twice_is_exit_2_with_one_line_on_both_clouds(tmp_path, cluster, zones, says):
    fleet = stack_fleet("prod")
    fleet["node_pools"].append({"name": "extra", "cluster": cluster, "max_size": 1, "zones": zones})
    done = subprocess.run([sys.executable, "-m", "sahab", "plan", "--program", str(program(tmp_path, fleet)),
                           "--stack", "t", "-q"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: sahab:fleet.node_pools[8].zones: {says}") and "Traceback" not in done.stderr

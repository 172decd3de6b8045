"""The on-prem parts of the fleet schema: node shapes, data disks, HA control planes, shared control-plane hosts."""

from __future__ import annotations

import pytest
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from tests.fleets import hybrid_fleet, stack_fleet


def _site(hosts: int = 2, **cluster) -> dict:
    return {
        "environment": "dev",
        "sites": [{"name": "auh", "emirate": "abu-dhabi", "city": "Abu Dhabi",
                   "hosts": [{"name": f"h{i}", "address": f"10.0.0.{i}", "cpus": 32, "memory_gib": 128}
                             for i in range(1, hosts + 1)]}],
        "clusters": [{"name": "lab", "kind": "onprem", "site": "auh", "control_plane_hosts": ["h1"], **cluster}],
        "node_pools": [{"name": "cpu", "cluster": "lab", "hosts": [f"h{hosts}"]}],
    }


def _error(data: dict) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_fleet(data)
    return info.value


def test_kubernetes_defaults_to_1_34_everywhere():
    fleet = parse_fleet(hybrid_fleet())
    assert {c.kubernetes_version for c in fleet.clusters} == {"1.34"}


@pytest.mark.parametrize(("field", "value", "says"), [
    ("cpus", None, "required but missing"),
    ("cpus", 0, "greater than or equal to 1"),
    ("memory_gib", None, "required but missing"),
    ("memory_gib", 1.5, "valid integer"),
    ("data_disk", "/etc/passwd", "is not a stable disk name; allowed: /dev/disk/by-id/<id>"),
    ("data_disk", "/dev/sdb; rm -rf /", "is not a stable disk name"),
    ("data_disk", "/dev/disk/by-id/../../sda", "is not a stable disk name"),
    # Kernel names can point at another disk after a reboot; luksFormat would erase it.
    ("data_disk", "/dev/nvme1n1", "kernel names like /dev/nvme1n1 can change between boots"),
    ("data_disk", "/dev/sdb", "is not a stable disk name"),
    ("data_disk", "/dev/disk/by-path/pci-0000:3b:00.0-nvme-1", "is not a stable disk name"),
])
def test_host_shape_and_data_disk_are_validated(field, value, says):
    data = _site()
    host = data["sites"][0]["hosts"][0]
    if value is None:
        del host[field]
    else:
        host[field] = value
    error = _error(data)
    assert error.path == f"sahab:fleet.sites[0].hosts[0].{field}"
    assert says in error.message


@pytest.mark.parametrize("disk", ["/dev/disk/by-id/nvme-SAMSUNG_MZQL23T8HCLS-00A07_S64H",
                                  "/dev/disk/by-id/wwn-0x5002538f4132a5c1", "/dev/disk/by-id/ata-ST4000NM0035_ZC1A"])
def test_disks_by_stable_id_are_accepted(disk):
    data = _site()
    data["sites"][0]["hosts"][1]["data_disk"] = disk
    assert parse_fleet(data).sites[0].hosts[1].data_disk == disk


@pytest.mark.parametrize(("hosts", "cluster", "path", "says"), [
    (4, {"control_plane_hosts": ["h1", "h2"]}, "control_plane_hosts", "allowed: 1, or 3 or more"),
    (4, {"control_plane_hosts": ["h1", "h2", "h3"]}, "control_plane_vip", "required with 3 control-plane hosts"),
    (4, {"control_plane_hosts": ["h1", "h2", "h3"], "control_plane_vip": "10.0.0.2"}, "control_plane_vip",
     "is the address of host h2"),
    (4, {"control_plane_hosts": ["h1", "h2", "h3"], "control_plane_vip": "127.0.0.1"}, "control_plane_vip",
     "cannot be a virtual IP"),
    (4, {"control_plane_hosts": ["h1", "h2", "h3"], "control_plane_vip": "10.0.0.300"}, "control_plane_vip",
     "allowed: an IPv4 or IPv6 address"),
    (4, {"control_plane_hosts": ["h1", "h1", "h2"], "control_plane_vip": "10.0.0.9"}, "control_plane_hosts",
     "listed twice"),
    (4, {"schedule_on_control_plane": True}, "schedule_on_control_plane", "only on sites of up to 3 hosts"),
])
def test_control_plane_settings_are_validated(hosts, cluster, path, says):
    error = _error(_site(hosts, **cluster))
    assert error.path == f"sahab:fleet.clusters[0].{path}"
    assert says in error.message


def test_an_ha_control_plane_with_a_vip_is_accepted():
    fleet = parse_fleet(_site(4, control_plane_hosts=["h1", "h2", "h3"], control_plane_vip="10.0.0.100"))
    assert fleet.clusters[0].control_plane_vip == "10.0.0.100"
    assert fleet.clusters[0].schedule_on_control_plane is False


def test_a_control_plane_host_joins_a_pool_only_when_workloads_may_share_it():
    data = _site(2)
    data["node_pools"][0]["hosts"] = ["h1", "h2"]
    error = _error(data)
    assert error.path == "sahab:fleet.node_pools[0].hosts[0]"
    assert "schedule_on_control_plane: true" in error.message
    data["clusters"][0]["schedule_on_control_plane"] = True
    assert parse_fleet(data).clusters[0].schedule_on_control_plane is True


def test_small_business_sites_share_their_control_plane_by_default():
    data = stack_fleet("smb")
    del data["clusters"][0]["schedule_on_control_plane"]
    assert parse_fleet(data).clusters[0].schedule_on_control_plane is True


def test_cloud_clusters_take_no_control_plane_settings():
    data = hybrid_fleet()
    data["clusters"][1]["control_plane_vip"] = "10.0.0.100"
    error = _error(data)
    assert error.path == "sahab:fleet.clusters[1].control_plane_vip"  # the setting itself (it was `.site`)
    assert "control_plane_vip" in error.message


def test_every_project_stack_describes_its_hosts():
    for stack in ("dev", "prod", "smb"):
        for site in parse_fleet(stack_fleet(stack)).sites:
            for host in site.hosts:
                assert host.cpus >= 8 and host.memory_gib >= 32

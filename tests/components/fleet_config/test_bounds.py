"""Ports are 1-65535 wherever a setting names one (smarthost, webhook URL, object store endpoint), as registry
hosts and SSH ports are; Alertmanager's timings are positive and bounded; integer settings take integers only
(not true, not "8") within bounds; and each error names the setting itself, not a cluster built from it."""

from __future__ import annotations

import pytest
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from tests.components.fleet_config.test_ascii_digits import _object_store, _smarthost, _smb_alerting
from tests.fleets import prod_with_only, stack_fleet


def _webhook(url):
    fleet = stack_fleet("smb")
    fleet["monitoring"]["alerting"] = {"receivers": [{"name": "wh", "type": "webhook", "url": url}]}
    return fleet


PORTS = [
    (_smarthost, "smtp.example.ae:{}", "sahab:fleet.monitoring.alerting.receivers[0].smarthost"),
    (_webhook, "https://hooks.example.ae:{}/x", "sahab:fleet.monitoring.alerting.receivers[0].url"),
    (_object_store, "https://s3.office.example.ae:{}", "sahab:fleet.sites[0].object_store.endpoint"),
]


@pytest.mark.parametrize(("make", "template", "path"), PORTS, ids=[p for *_, p in PORTS])
@pytest.mark.parametrize("port", [0, 65536, 99999, "00000"])
def test_a_port_out_of_range_is_refused_naming_the_setting(make, template, path, port):
    parse_fleet(make(template.format(1)))
    parse_fleet(make(template.format(65535)))
    with pytest.raises(ConfigError) as raised:
        parse_fleet(make(template.format(port)))
    message = str(raised.value)
    assert message.startswith(f"{path}: ") and "allowed: a port 1-65535" in message
    assert "clusters[" not in message


TIMINGS = [("group_wait", "0s", "1s", "1h", "61m"), ("group_interval", "0s", "1s", "1d", "25h"),
           ("repeat_interval", "59s", "1m", "30d", "31d"), ("group_wait", "0m", "1s", "1h", "99999999999999999999999d")]


@pytest.mark.parametrize(("setting", "zero", "low", "high", "over"), TIMINGS)
def test_alerting_timings_are_positive_and_bounded(setting, zero, low, high, over):
    for fine in (low, high):
        parse_fleet(_smb_alerting(**{setting: fine}))
    for bad in (zero, over):
        with pytest.raises(ConfigError) as raised:
            parse_fleet(_smb_alerting(**{setting: bad}))
        assert str(raised.value).startswith(f"sahab:fleet.monitoring.alerting.{setting}: ")
        assert f"allowed: {low} to {high}" in str(raised.value)


def _gpus_per_worker(value):
    fleet = prod_with_only("auh-onprem")
    fleet["node_pools"][0]["gpus_per_worker"] = value
    return fleet


def _cmk(value):
    fleet = prod_with_only("aks-main")
    fleet["clouds"]["azure"]["control_plane_logs_cmk_gb_per_day"] = value
    return fleet


def _retention_days(value):
    fleet = prod_with_only("aks-main")
    fleet["clouds"]["azure"]["control_plane_log_retention_days"] = value
    return fleet


INTEGERS = [
    (_gpus_per_worker, 8, [True, "8", 8.0, 0, 17], "sahab:fleet.node_pools[0].gpus_per_worker"),
    (_cmk, 100, ["100", True, 99, 10**30, 100.0], "sahab:fleet.clouds.azure.control_plane_logs_cmk_gb_per_day"),
    (_retention_days, 365, ["365", 365.0], "sahab:fleet.clouds.azure.control_plane_log_retention_days"),
]


@pytest.mark.parametrize(("make", "good", "bad", "path"), INTEGERS, ids=[p for *_, p in INTEGERS])
def test_integer_settings_take_integers_within_bounds(make, good, bad, path):
    parse_fleet(make(good))
    for value in bad:
        with pytest.raises(ConfigError) as raised:
            parse_fleet(make(value))
        assert str(raised.value).startswith(f"{path}: "), (value, str(raised.value))


@pytest.mark.parametrize("port", [0, 65536, 99999])
def test_the_workload_images_registry_port_is_bounded(port):
    fleet = stack_fleet("smb")
    fleet["workload"]["image"] = "registry.office.example.ae:5000/sahab/workload:0.1.0"
    parse_fleet(fleet)
    fleet["workload"]["image"] = f"registry.office.example.ae:{port}/sahab/workload:0.1.0"
    with pytest.raises(ConfigError) as raised:
        parse_fleet(fleet)
    assert str(raised.value).startswith("sahab:fleet.workload.image: ") and "port is 1-65535" in str(raised.value)

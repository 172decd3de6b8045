"""GPU planning without Pulumi: tolerations, device plugin configurations per pool, DCGM metric coverage."""

import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from sahab.components import accelerators
from sahab.components.fleet_config import NodePool, Taint
from sahab.components.kubernetes import alerts, dashboards, gpu_config


def gpu_pool(**kw) -> NodePool:
    return NodePool(name=kw.pop("name", "gpus"), cluster="c", accelerator=kw.pop("accelerator", "h100"), **kw)


def test_tolerations_cover_the_gpu_taint_and_every_extra_taint_once():
    a = gpu_pool(name="pool-a", extra_taints=(Taint(key="team", value="research"),))
    b = gpu_pool(name="pool-b", extra_taints=(Taint(key="team", value="research"),
                                              Taint(key="spot", effect="NoExecute")))
    tolerations = gpu_config.gpu_pool_tolerations([a, b])
    assert tolerations[0] == {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    assert {"key": "team", "operator": "Equal", "value": "research", "effect": "NoSchedule"} in tolerations
    assert {"key": "spot", "operator": "Equal", "value": "", "effect": "NoExecute"} in tolerations
    assert len(tolerations) == 3
    # Every GPU pool's own taints are tolerated.
    for pool in (a, b):
        for taint in pool.taints:
            assert any(t["key"] == taint.key and t["effect"] == taint.effect for t in tolerations)


def test_time_slicing_config_shares_each_gpu_and_refuses_multi_share_requests():
    config = yaml.safe_load(gpu_config.device_plugin_config("none", 4))
    assert config["version"] == "v1"
    assert config["flags"]["migStrategy"] == "none"
    slicing = config["sharing"]["timeSlicing"]
    assert slicing["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    assert slicing["failRequestsGreaterThanOne"] is True


def test_config_without_sharing_has_no_sharing_section():
    config = yaml.safe_load(gpu_config.device_plugin_config("mixed", None))
    assert config == {"version": "v1", "flags": {"migStrategy": "mixed"}}


@pytest.mark.parametrize("strategy", ["none", "single", "mixed"])
def test_every_pool_setting_the_schema_allows_finds_its_configuration(strategy):
    configs = gpu_config.device_plugin_configs()
    for replicas in (None, 2, 7, 48):
        pool = gpu_pool(mig_strategy=strategy, time_slicing_replicas=replicas)
        label = pool.node_labels[accelerators.LABEL_DEVICE_PLUGIN_CONFIG]
        chosen = yaml.safe_load(configs[label])
        assert chosen["flags"]["migStrategy"] == strategy
        shared = chosen.get("sharing", {}).get("timeSlicing", {}).get("resources", [{}])[0].get("replicas")
        assert shared == replicas


def test_configmap_has_one_entry_per_combination_and_a_default():
    configs = gpu_config.device_plugin_configs()
    assert len(configs) == 3 * (1 + 47)
    assert gpu_config.DEFAULT_CONFIG in configs
    assert yaml.safe_load(configs[gpu_config.DEFAULT_CONFIG]) == {"version": "v1", "flags": {"migStrategy": "none"}}


def test_cpu_pools_carry_no_device_plugin_label():
    cpu = NodePool(name="cpu", cluster="c")
    assert accelerators.LABEL_DEVICE_PLUGIN_CONFIG not in cpu.node_labels


def test_cluster_mig_strategy_is_the_common_one_or_mixed():
    assert gpu_config.cluster_mig_strategy([gpu_pool(mig_strategy="single")]) == "single"
    assert gpu_config.cluster_mig_strategy([gpu_pool(name="pool-a"), gpu_pool(name="pool-b")]) == "none"
    mixed = [gpu_pool(name="pool-a", mig_strategy="single"), gpu_pool(name="pool-b")]
    assert gpu_config.cluster_mig_strategy(mixed) == "mixed"


def _dcgm_fields(text: str) -> set[str]:
    return set(re.findall(r"DCGM_FI_[A-Z_]+", text))


def test_every_dcgm_metric_that_alerts_and_dashboards_read_is_exported():
    exported = {field for field, _, _ in gpu_config.DCGM_METRICS}
    used = _dcgm_fields(str(alerts.rule_groups(20, gpus=True))) | _dcgm_fields(str(dashboards.dashboards(True)))
    assert used, "the alerts and dashboards read DCGM metrics"
    assert used <= exported, f"not exported: {sorted(used - exported)}"
    csv = gpu_config.dcgm_metrics_csv()
    rows = [line.split(",") for line in csv.splitlines() if not line.startswith("#")]
    assert {row[0] for row in rows} == exported
    assert all(row[1].strip() in ("gauge", "counter") for row in rows)


taints = st.builds(Taint, key=st.sampled_from(["dedicated", "team", "spot", "example.com/zone"]),
                   value=st.sampled_from(["", "ml", "research"]),
                   effect=st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"]))


@given(st.lists(st.lists(taints, max_size=3), min_size=1, max_size=4))
def test_any_gpu_pools_taints_are_all_tolerated_exactly_once(pool_taints):
    pools = [gpu_pool(name=f"pool-{i}", extra_taints=tuple(t)) for i, t in enumerate(pool_taints)]
    tolerations = gpu_config.gpu_pool_tolerations(pools)
    keys = [tuple(sorted(t.items())) for t in tolerations]
    assert len(keys) == len(set(keys))
    for pool in pools:
        for taint in pool.taints:
            assert any(t["key"] == taint.key and t["effect"] == taint.effect
                       and (t["operator"] == "Exists" or t["value"] == taint.value) for t in tolerations)

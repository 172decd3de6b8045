"""Pure planning for on-prem pools: groups, labels and the PlaybookRun inputs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from sahab.components.onprem.host_args import OnPremAccessArgs, OnPremHostArgs
from sahab.components.onprem.inventory import (
    converge_inputs,
    group_for,
    host_vars,
    hosts_for,
    pool_host_vars,
    reserved_cpus,
)
from sahab.components.onprem.node_pool import OnPremNodePoolArgs

ACCESS = OnPremAccessArgs(ssh_private_key="PRIVATE KEY", known_hosts="[10.0.0.5]:22 ssh-ed25519 AAAA")


@given(st.text(min_size=1).filter(lambda s: s != "cpu"))
def test_every_accelerator_but_cpu_is_a_gpu_pool(accelerator):
    assert group_for(accelerator) == "gpu_nodes"
    assert group_for("cpu") == "cpu_nodes"


def test_pool_vars_carry_labels_structured_taints_and_the_cpu_manager_on_cpu_pools():
    taint = {"key": "dedicated", "value": "nlp", "effect": "NoSchedule"}
    assert pool_host_vars("a100", "a100", {"team": "nlp"}, [taint]) == {
        "sahab_kubernetes_node_pool": "a100",
        "sahab_kubernetes_accelerator": "a100",
        "sahab_kubernetes_node_labels": {"team": "nlp"},
        "sahab_kubernetes_node_taints": [taint],
        "sahab_kubernetes_cpu_manager": False,
    }
    assert pool_host_vars("cpu", "cpu", {}, [])["sahab_kubernetes_cpu_manager"] is True


@pytest.mark.parametrize(("cpus", "reserved"), [(None, "0"), (2, "0"), (16, "0"), (17, "0-1"), (64, "0-1"),
                                                (65, "0-3"), (224, "0-3")])
def test_reserved_system_cpus_grow_with_the_host(cpus, reserved):
    assert reserved_cpus(cpus) == reserved


def test_a_host_with_a_data_disk_gets_its_luks_volume_keyed_by_its_name():
    host = OnPremHostArgs(name="cpu-1", address="10.0.0.9", cpus=32, data_disk="/dev/disk/by-id/nvme-x")
    assert host_vars(host) == {
        "sahab_kubernetes_reserved_cpus": "0-1",
        "sahab_data_volumes_list": [{"name": "sahab-data", "device": "/dev/disk/by-id/nvme-x",
                                     "mountpoint": "/var/lib/sahab/volumes", "key": "cpu-1"}],
    }
    assert "sahab_data_volumes_list" not in host_vars(host.model_copy(update={"data_disk": None}))


def test_converge_inputs_are_airgapped_by_default_and_keep_secrets_out_of_the_hash():
    hosts = hosts_for([OnPremHostArgs(name="gpu-1", address="10.0.0.5")], "gpu_nodes")
    plain = converge_inputs(hosts, ACCESS, "gpu-1")
    assert plain["variables"] == {"sahab_airgapped": True, "sahab_skip_hardware_checks": False}
    assert plain["hosts"][0] == {
        "name": "gpu-1",
        "address": "10.0.0.5",
        "group": "gpu_nodes",
        "port": 22,
        "user": "root",
        "vars": {"sahab_kubernetes_reserved_cpus": "0"},
    }
    with_secret = converge_inputs(hosts, ACCESS.model_copy(update={"secret_variables": {"t": "s3cret"}}), "gpu-1")
    assert with_secret["content_hash"] == plain["content_hash"]
    assert with_secret["secret_variables"] == {"t": "s3cret"}


def test_pool_args_are_strict():
    host = OnPremHostArgs(name="cpu-1", address="10.0.0.9")
    with pytest.raises(ValidationError, match="unique"):
        OnPremNodePoolArgs(pool="cpu", hosts=(host, host), access=ACCESS)
    with pytest.raises(ValidationError, match="Extra inputs"):
        OnPremNodePoolArgs(pool="cpu", hosts=(host,), access=ACCESS, size=3)
    with pytest.raises(ValidationError):
        OnPremNodePoolArgs(pool="cpu", hosts=(), access=ACCESS)
    with pytest.raises(ValidationError):
        OnPremHostArgs(name="Bad_Name", address="10.0.0.9")
    args = OnPremNodePoolArgs(pool="cpu", hosts=(host,), access=ACCESS)
    with pytest.raises(ValidationError):
        args.pool = "other"  # frozen

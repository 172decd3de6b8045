"""Pure planning for on-prem pools: groups, labels and the PlaybookRun inputs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from components.onprem.inventory import converge_inputs, group_for, hosts_for, pool_host_vars
from components.onprem.models import OnPremAccessArgs, OnPremHostArgs
from components.onprem.node_pool import OnPremNodePoolArgs

ACCESS = OnPremAccessArgs(ssh_private_key="PRIVATE KEY", known_hosts="[10.0.0.5]:22 ssh-ed25519 AAAA")


@given(st.text(min_size=1).filter(lambda s: s != "cpu"))
def test_every_accelerator_but_cpu_is_a_gpu_pool(accelerator):
    assert group_for(accelerator) == "gpu_nodes"
    assert group_for("cpu") == "cpu_nodes"


def test_pool_vars_carry_labels_and_taints():
    assert pool_host_vars("a100", "nvidia-a100", {"team": "nlp"}, ["dedicated=nlp:NoSchedule"]) == {
        "sahab_kubernetes_node_pool": "a100",
        "sahab_kubernetes_accelerator": "nvidia-a100",
        "sahab_kubernetes_node_labels": {"team": "nlp"},
        "sahab_kubernetes_node_taints": ["dedicated=nlp:NoSchedule"],
    }


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
        "vars": {},
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

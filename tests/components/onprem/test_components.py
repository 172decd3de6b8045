"""OnPremNodePool and OnPremCluster under Pulumi's mocks, and the dynamic provider's create/diff contract."""

from __future__ import annotations

import pulumi
import pytest
from sahab.components.onprem import playbook_run
from sahab.components.onprem.cluster import OnPremCluster, OnPremClusterArgs
from sahab.components.onprem.host_args import OnPremAccessArgs, OnPremHostArgs
from sahab.components.onprem.node_pool import OnPremNodePool, OnPremNodePoolArgs, TaintArgs
from sahab.components.onprem.playbook_run import PlaybookProvider
from sahab.components.onprem.runner import HostOutcome, RunResult

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key\n-----END OPENSSH PRIVATE KEY-----"
TOKEN = "abcdef.0123456789abcdef"


class RecordingMocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.resources: list[pulumi.runtime.MockResourceArgs] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        self.resources.append(args)
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


@pytest.fixture
def mocks():
    recorder = RecordingMocks()
    pulumi.runtime.set_mocks(recorder, project="sahab", stack="test", preview=False)
    yield recorder
    pulumi.runtime.settings.reset_options()


def _access(**overrides) -> OnPremAccessArgs:
    return OnPremAccessArgs(
        ssh_private_key=KEY,
        known_hosts="[10.20.0.2]:22 ssh-ed25519 AAAA",
        secret_variables={"sahab_node_join_token": TOKEN},
        **overrides,
    )


def _pool_args(**overrides) -> OnPremNodePoolArgs:
    return OnPremNodePoolArgs(
        pool="gpu-a100",
        cluster="uae-dc1",
        accelerator="a100",
        gpus_per_node=8,
        hosts=(
            OnPremHostArgs(name="gpu-1", address="10.20.0.11", cpus=128, memory_gib=1024),
            OnPremHostArgs(name="gpu-2", address="10.20.0.12", cpus=128, memory_gib=1024),
        ),
        control_plane_hosts=(OnPremHostArgs(name="cp-1", address="10.20.0.2"),),
        labels={"team": "vision"},
        taints=(TaintArgs(key="nvidia.com/gpu", value="present", effect="NoSchedule"),),
        access=_access(**overrides),
    )


def _wait(output: pulumi.Output):
    """Resolve an Output under mocks to (value, is_secret)."""
    from pulumi.runtime.sync_await import _sync_await

    return _sync_await(output.future()), _sync_await(output.is_secret())


@pulumi.runtime.test
def test_node_pool_registers_one_converge_run_with_secret_key_and_token(mocks):
    pool = OnPremNodePool("uae-dc1-gpu", _pool_args(failure_budget=1))

    def check(_):
        types = {r.typ: r for r in mocks.resources}
        assert "sahab:onprem:NodePool" in types
        run = next(r for r in mocks.resources if r.name == "uae-dc1-gpu-converge")
        inputs = run.inputs
        assert inputs["limit"] == "gpu-1,gpu-2"  # the control plane is only there to mint join tokens
        groups = {h["name"]: h["group"] for h in inputs["hosts"]}
        assert groups == {"cp-1": "control_plane", "gpu-1": "gpu_nodes", "gpu-2": "gpu_nodes"}
        gpu_vars = next(h for h in inputs["hosts"] if h["name"] == "gpu-1")["vars"]
        assert gpu_vars["sahab_kubernetes_node_pool"] == "gpu-a100"
        assert gpu_vars["sahab_kubernetes_accelerator"] == "a100"
        assert gpu_vars["sahab_kubernetes_reserved_cpus"] == "0-3"
        assert gpu_vars["sahab_kubernetes_node_labels"] == {"team": "vision"}
        assert inputs["variables"]["sahab_airgapped"] is True
        assert inputs["failure_budget"] == 1
        assert len(inputs["content_hash"]) == 64
        assert pool.host_names == ["gpu-1", "gpu-2"]

    return pool.outcomes.apply(check)


@pulumi.runtime.test
def test_node_pool_registers_its_nodes_shape_as_its_inputs(mocks):
    pool = OnPremNodePool("uae-dc1-gpu", _pool_args())

    def check(_):
        component = next(r for r in mocks.resources if r.typ == "sahab:onprem:NodePool")
        assert component.inputs == {
            "cluster": "uae-dc1",
            "accelerator": "a100",
            "labels": {"team": "vision"},
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
            "nodes": [{"host": "gpu-1", "cpu": 128, "memoryGi": 1024, "gpus": 8},
                      {"host": "gpu-2", "cpu": 128, "memoryGi": 1024, "gpus": 8}],
            "controlPlane": False,
        }

    return pool.outcomes.apply(check)


@pulumi.runtime.test
def test_a_pool_of_control_plane_hosts_only_is_converged_by_the_cluster(mocks):
    cp = OnPremHostArgs(name="cp-1", address="10.20.0.2", cpus=16, memory_gib=64)
    args = _pool_args().model_copy(update={"hosts": (cp,), "control_plane_hosts": (cp,)})
    pool = OnPremNodePool("office-cpu", args)
    assert pool.converge is None
    assert args.props()["controlPlane"] is True

    def check(_):
        assert not any(r.name == "office-cpu-converge" for r in mocks.resources)

    return pulumi.Output.from_input(pool.host_names).apply(check)


@pulumi.runtime.test
def test_node_pool_keeps_the_key_and_the_secret_variables_secret(mocks):
    pool = OnPremNodePool("uae-dc1-gpu", _pool_args())
    run = pool.converge
    flags = pulumi.Output.all(
        pulumi.Output.from_input(run.private_key).is_secret(),
        pulumi.Output.from_input(run.secret_variables).is_secret(),
    )

    def check(values):
        assert values == [True, True]

    return pulumi.Output.from_input(flags).apply(check)


@pulumi.runtime.test
def test_cluster_converges_the_control_plane_with_its_endpoint(mocks):
    cluster = OnPremCluster(
        "uae-dc1",
        OnPremClusterArgs(control_plane_hosts=(OnPremHostArgs(name="cp-1", address="10.20.0.2"),), access=_access()),
    )
    assert cluster.kind == "onprem"
    assert cluster.storage_encryption_id is None  # LUKS on the hosts, no cloud key

    def check(args):
        kubeconfig_is_secret, _ = args
        assert kubeconfig_is_secret
        assert any(r.typ == "sahab:onprem:Cluster" for r in mocks.resources)
        run = next(r for r in mocks.resources if r.name == "uae-dc1-control-plane")
        assert run.inputs["limit"] == "control_plane"
        assert run.inputs["variables"]["sahab_control_plane_endpoint"] == "10.20.0.2:6443"
        assert cluster.endpoint == "10.20.0.2:6443"

    return pulumi.Output.all(pulumi.Output.from_input(cluster.kubeconfig.is_secret()), cluster.outcomes).apply(check)


def _ha_args(**overrides) -> OnPremClusterArgs:
    hosts = tuple(OnPremHostArgs(name=f"cp-{i}", address=f"10.20.0.{i}", cpus=16, memory_gib=64) for i in (1, 2, 3))
    return OnPremClusterArgs(control_plane_hosts=hosts, vip="10.20.0.100", data_disk_hosts=("cp-1", "gpu-1"),
                             access=_access(), **overrides)


@pulumi.runtime.test
def test_ha_cluster_generates_its_secrets_and_keys_and_converges_behind_the_vip(mocks):
    cluster = OnPremCluster("uae-dc1", _ha_args())
    assert cluster.endpoint == "10.20.0.100:6443"
    assert set(cluster.data_volume_keys) == {"cp-1", "gpu-1"}  # one LUKS key per host with a disk

    def check(secret_flags):
        assert all(secret_flags)
        passwords = sorted(r.name for r in mocks.resources if r.typ == "random:index/randomPassword:RandomPassword")
        assert passwords == ["uae-dc1-certificate-key", "uae-dc1-luks-cp-1", "uae-dc1-luks-gpu-1",
                             "uae-dc1-secrets-encryption-key"]
        assert all(r.inputs["length"] == 64 and r.inputs["special"] is False for r in mocks.resources
                   if r.typ == "random:index/randomPassword:RandomPassword")
        run = next(r for r in mocks.resources if r.name == "uae-dc1-control-plane")
        assert [h["name"] for h in run.inputs["hosts"]] == ["cp-1", "cp-2", "cp-3"]  # cp-1 runs kubeadm init
        assert run.inputs["variables"]["sahab_control_plane_vip"] == "10.20.0.100"
        assert run.inputs["variables"]["sahab_control_plane_schedulable"] is False
        for secret in ("sahab_control_plane_encryption_secret", "sahab_control_plane_certificate_secret"):
            assert secret not in run.inputs["variables"]

    flags = pulumi.Output.all(*(k.is_secret() for k in cluster.data_volume_keys.values()),
                              pulumi.Output.from_input(cluster.converge.secret_variables).is_secret())
    return flags.apply(check)


def test_control_plane_sizes_are_one_or_three_and_more_with_a_vip():
    with pytest.raises(ValueError, match="etcd majority"):
        _ha_args().model_copy(update={}).model_validate({**_ha_args().model_dump(),
                                                         "control_plane_hosts": _ha_args().model_dump()[
                                                             "control_plane_hosts"][:2]})
    with pytest.raises(ValueError, match="need a vip"):
        OnPremClusterArgs.model_validate({**_ha_args().model_dump(), "vip": None})


def test_diff_reruns_on_content_secrets_or_budget_but_not_on_a_rotated_key():
    provider = PlaybookProvider()
    olds = {
        "run_name": "p",
        "content_hash": "a" * 64,
        "secret_variables": {"t": "1"},
        "private_key": "k1",
        "known_hosts": "kh",
        "limit": "gpu-1",
        "failure_budget": 0,
        "tags": [],
        "outcomes": {},
    }
    assert not provider.diff("p", olds, {**olds}).changes
    assert not provider.diff("p", olds, {**olds, "private_key": "k2"}).changes
    for key, value in [
        ("content_hash", "b" * 64),
        ("secret_variables", {"t": "2"}),
        ("failure_budget", 1),
        ("known_hosts", "kh2"),
        ("limit", "gpu-1,gpu-2"),
    ]:
        result = provider.diff("p", olds, {**olds, key: value})
        assert result.changes, key
        assert result.replaces == []  # a converge re-runs in place


def _fake_run(outcomes: dict[str, str], budget: int):
    def run(hosts, **kwargs):
        assert kwargs["failure_budget"] == budget
        # secrets reach Ansible as variables, kept apart so no failure message can show them
        assert kwargs["secret_variables"]["sahab_node_join_token"] == TOKEN
        assert "sahab_node_join_token" not in kwargs["variables"]
        return RunResult(
            {
                n: HostOutcome(n, s, message="" if s in ("ok", "changed") else "Connection refused")
                for n, s in outcomes.items()
            },
            failure_budget=budget,
            artifacts={"sahab_kubeconfig": "apiVersion: v1"},
            rc=0 if budget else 4,
        )

    return run


def _props(budget: int) -> dict:
    return {
        "run_name": "pool-converge",
        "hosts": [
            {"name": n, "address": "10.0.0.1", "group": "cpu_nodes", "port": 22, "user": "root", "vars": {}}
            for n in ("a", "b")
        ],
        "variables": {},
        "secret_variables": {"sahab_node_join_token": TOKEN},
        "private_key": KEY,
        "known_hosts": "kh",
        "limit": "",
        "tags": [],
        "failure_budget": budget,
        "playbook_dir": "/nonexistent",
        "content_hash": "h",
    }


def test_create_records_outcomes_and_tolerates_failures_within_budget(monkeypatch):
    monkeypatch.setattr(playbook_run.runner, "run_playbook", _fake_run({"a": "changed", "b": "unreachable"}, 1))
    result = PlaybookProvider().create(_props(1))
    assert result.id == "pool-converge"
    assert result.outs["failed_hosts"] == ["b"]
    assert result.outs["changed_hosts"] == ["a"]
    assert result.outs["outcomes"]["b"]["status"] == "unreachable"
    assert result.outs["artifacts"] == {"sahab_kubeconfig": "apiVersion: v1"}  # a secret output of PlaybookRun


def test_create_fails_naming_the_hosts_beyond_the_budget(monkeypatch):
    monkeypatch.setattr(playbook_run.runner, "run_playbook", _fake_run({"a": "changed", "b": "unreachable"}, 0))
    with pytest.raises(RuntimeError, match=r"b: unreachable \(Connection refused\)"):
        PlaybookProvider().create(_props(0))

"""Cilium: pinned, WireGuard-encrypted, NetworkPolicy-enforcing, and installed before every other release."""

from __future__ import annotations

import pulumi
import pytest
from pydantic import ValidationError
from sahab.components.kubernetes.cilium import CHART_VERSION, Cilium, CiliumArgs, after_cni, helm_values


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


def test_values_encrypt_pod_traffic_and_enforce_network_policies():
    values = helm_values(CiliumArgs(api_server="10.20.0.5:6443", operator_replicas=2))
    assert values["k8sServiceHost"] == "10.20.0.5" and values["k8sServicePort"] == 6443
    assert values["encryption"] == {"enabled": True, "type": "wireguard"}
    assert values["policyEnforcementMode"] == "default"
    assert values["ipam"] == {"mode": "kubernetes"}  # kubeadm's per-node slices of the pod subnet
    assert values["tunnelProtocol"] == "vxlan"  # UDP 8472, opened by the nodes' firewall
    assert values["operator"]["replicas"] == 2


def test_an_ipv6_api_server_reaches_the_agents_without_brackets():
    """kubeadm's endpoint of an IPv6 VIP is `[addr]:port`; the agents' KUBERNETES_SERVICE_HOST is the bare address
    (a client adds the brackets when it joins host and port, so `[addr]` would become `[[addr]]:6443`)."""
    from sahab.components.onprem.host_args import host_port

    endpoint = host_port("fd00:10::20", 6443)
    values = helm_values(CiliumArgs(api_server=endpoint))
    assert (values["k8sServiceHost"], values["k8sServicePort"]) == ("fd00:10::20", 6443)


@pytest.mark.parametrize("endpoint", ["10.20.0.5", "10.20.0.5:0", ":6443", "10.20.0.5:https", "[]:6443",
                                      "fd00:10::20:6443", "[fd00:10::20:6443", "fd00:10::20]:6443"])
def test_the_api_server_must_be_host_and_port(endpoint):
    with pytest.raises(ValidationError, match="host:port"):
        CiliumArgs(api_server=endpoint)


@pulumi.runtime.test
def test_one_pinned_release_of_the_cilium_chart(mocks):
    cni = Cilium("lab-cni", CiliumArgs(api_server="10.30.0.10:6443"))

    def check(_):
        (release,) = [r for r in mocks.resources if r.typ == "kubernetes:helm.sh/v3:Release"]
        assert release.inputs["chart"] == "cilium"
        assert release.inputs["version"] == CHART_VERSION
        assert release.inputs["namespace"] == "kube-system"
        assert release.inputs["repositoryOpts"] == {"repo": "https://helm.cilium.io/"}

    return cni.release.name.apply(check)


@pulumi.runtime.test
def test_after_cni_makes_a_component_and_its_children_wait_for_the_release(mocks):
    cni = Cilium("lab-cni", CiliumArgs(api_server="10.30.0.10:6443"))
    transform = after_cni(cni)
    result = transform(pulumi.ResourceTransformationArgs(
        resource=None, type_="kubernetes:core/v1:Namespace", name="ns", props={"metadata": {}},
        opts=pulumi.ResourceOptions(depends_on=[])))
    assert cni.release in result.opts.depends_on
    assert result.props == {"metadata": {}}
    return cni.release.name.apply(lambda _: None)

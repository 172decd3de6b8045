"""The platform's own namespaces are fenced: default-deny with exactly the flows their components need, valid
NetworkPolicies, and a readiness verdict that names the flow a fence cuts."""

from __future__ import annotations

import copy

import pytest
from sahab.components.egress import PRIVATE_RANGES
from sahab.components.fleet_config import NodePool, parse_fleet
from sahab.components.kubernetes.platform_fences import (
    DEFAULT_DENY,
    FenceArgs,
    PlatformFences,
    fence_args,
    platform_flows,
    policy_specs,
)

from sahab.readiness import judge
from tests.components.kubernetes.harness import of_type, with_provider
from tests.components.kubernetes.manifests import validate
from tests.fleets import stack_fleet
from tests.sahab.readiness.builders import onprem_cluster, onprem_node, onprem_pool, planned, platform

NETPOL = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
ONPREM = FenceArgs(cluster_kind="onprem", api_server=("10.10.0.10/32", "10.10.0.5/32"), api_port=6443,
                   nodes=("10.10.0.10/32", "10.10.1.11/32"), receiver_ports=(587,), cloud_networks=("10.40.0.0/16",))


def test_prod_clusters_fence_with_their_own_network_facts():
    fleet = parse_fleet(stack_fleet("prod"))
    onprem = fence_args(fleet, fleet.cluster("auh-onprem"))
    assert onprem.api_server == ("10.10.0.10/32", "10.10.0.11/32", "10.10.0.12/32", "10.10.0.5/32")
    assert onprem.api_port == 6443 and "10.10.1.11/32" in onprem.nodes and onprem.receiver_ports == (587,)
    eks = fence_args(fleet, fleet.cluster("eks-main"))
    assert (eks.api_server, eks.api_port, eks.nodes) == (("10.40.0.0/16",), 443, ("10.40.0.0/16",))
    assert eks.cloud_networks == ("10.40.0.0/16", "10.50.0.0/16")


def test_each_platform_namespace_denies_everything_then_allows_its_flows():
    specs = policy_specs(platform_flows(ONPREM))
    fenced = {ns for ns, name in specs if name == DEFAULT_DENY}
    assert fenced == {"sahab-system", "monitoring", "kueue-system", "kube-system"}
    for ns in fenced:
        assert specs[(ns, DEFAULT_DENY)][1] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    # sahab-system: the API server alone
    assert sorted(name for ns, name in specs if ns == "sahab-system") == ["allow-api-server-egress", DEFAULT_DENY]
    api = specs[("sahab-system", "allow-api-server-egress")][1]
    assert api["egress"] == [{"to": [{"ipBlock": {"cidr": "10.10.0.10/32"}}, {"ipBlock": {"cidr": "10.10.0.5/32"}}],
                              "ports": [{"port": 6443, "protocol": "TCP"}]}]
    alertmanager = specs[("monitoring", "allow-alertmanager-notifies-its-receivers-egress")][1]
    assert alertmanager["podSelector"] == {"matchLabels": {"app.kubernetes.io/name": "alertmanager"}}
    assert alertmanager["egress"][0]["ports"] == [{"port": 587, "protocol": "TCP"}]
    # no public address is opened (SAHAB-K8S-020): receivers and upstream DNS in the private ranges
    assert alertmanager["egress"][0]["to"] == [{"ipBlock": {"cidr": c}} for c in PRIVATE_RANGES]
    upstream = specs[("kube-system", "allow-coredns-forwards-upstream-udp-egress")][1]
    assert upstream["egress"][0]["to"] == [{"ipBlock": {"cidr": c}} for c in PRIVATE_RANGES]
    cloud = FenceArgs(cluster_kind="eks", api_server=("10.40.0.0/16",), monitoring=False, validator=False)
    assert {ns for f in platform_flows(cloud) for ns in [f.namespace]} == {"kueue-system"}


def test_the_fences_are_valid_network_policies():
    resources = with_provider(lambda o: PlatformFences("fences", ONPREM, opts=o))
    policies = of_type(resources, NETPOL)
    assert len(policies) == len(policy_specs(platform_flows(ONPREM)))
    for res in policies:
        assert res.inputs["kind"] == "NetworkPolicy" and validate(res.inputs) == [], res.name


CPU = NodePool(name="cpu", cluster="site", hosts=("c1",))


@pytest.fixture(scope="module")
def site():
    def program():
        provider = onprem_cluster("site", [onprem_pool(CPU, [onprem_node("c1")])])
        platform(provider, "onprem", (CPU,), fences=ONPREM)

    return planned(program)


def _problems(resources):
    return [p.problem for p in judge(resources).problems]


def _edit(resources, namespace, name, change):
    out = []
    for res in resources:
        meta = res.inputs.get("metadata") or {}
        if res.type == NETPOL and meta.get("namespace") == namespace and meta.get("name") == name:
            res = copy.deepcopy(res)
            if change(res.inputs) is False:
                continue  # dropped
        out.append(res)
    assert out != resources
    return out


def test_the_fenced_platform_is_ready(site):
    assert len(of_type(site, NETPOL)) >= len(policy_specs(platform_flows(ONPREM)))
    assert _problems(site) == []


def test_a_fence_without_dns_is_not_ready_naming_the_flow(site):
    found = _problems(_edit(site, "monitoring", "allow-dns-udp-egress", lambda inputs: False))
    assert found == ["the monitoring fence cuts DNS (UDP) (egress to pods {'k8s-app': 'kube-dns'} in kube-system, "
                     "53/UDP): the component that needs it cannot work"]


def test_a_fence_to_the_wrong_api_server_port_is_not_ready(site):
    def port(inputs):
        inputs["spec"]["egress"][0]["ports"][0]["port"] = 443

    found = _problems(_edit(site, "kueue-system", "allow-api-server-egress", port))
    assert found == ["the kueue-system fence cuts API server (egress to 10.10.0.10/32, 10.10.0.5/32, 6443/TCP): the "
                     "component that needs it cannot work"]


def test_prometheus_scraping_only_its_own_namespace_is_not_ready(site):
    def narrow(inputs):
        inputs["spec"]["egress"][0]["to"][0]["namespaceSelector"] = {
            "matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}

    found = _problems(_edit(site, "monitoring", "allow-prometheus-scrapes-pods-egress", narrow))
    assert len(found) == 1 and "cuts Prometheus scrapes pods" in found[0]


def test_coredns_cut_from_other_namespaces_is_not_ready(site):
    def own_namespace_only(inputs):
        for rule in inputs["spec"]["ingress"]:
            rule["from"][0].pop("namespaceSelector")

    found = _problems(_edit(site, "kube-system", "allow-dns-from-every-pod-tcp-ingress", own_namespace_only))
    assert len(found) == 1 and "kube-system fence cuts DNS from every pod (TCP)" in found[0]


def test_a_wider_policy_beside_the_fence_keeps_it_ready(site):
    def anything(inputs):
        inputs["spec"] = {"podSelector": {}, "policyTypes": ["Egress"], "egress": [{}]}

    assert _problems(_edit(site, "monitoring", "allow-dns-udp-egress", anything)) == []

"""TeamNamespace under mocks: Pod Security, quotas, deny-by-default networking, least-privilege RBAC."""

import pytest
from pydantic import ValidationError
from sahab.components.fleet_config import Team
from sahab.components.kubernetes.team_namespace import TeamNamespace, TeamNamespaceArgs, network_policies

from tests.components.kubernetes.harness import of_type, one, with_provider

NP = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
QUOTA = "kubernetes:core/v1:ResourceQuota"


def build(**team):
    args = TeamNamespaceArgs(team=Team(name=team.pop("name", "research"), **team))
    return with_provider(lambda o: TeamNamespace("team", args, opts=o))


def test_restricted_pod_security_enforced_audited_and_warned():
    labels = one(build(), "kubernetes:core/v1:Namespace").inputs["metadata"]["labels"]
    for mode in ("enforce", "audit", "warn"):
        assert labels[f"pod-security.kubernetes.io/{mode}"] == "restricted"


def test_a_team_may_ask_for_baseline():
    labels = one(build(pod_security="baseline"), "kubernetes:core/v1:Namespace").inputs["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "baseline"


def test_quota_caps_gpus_cpu_and_memory():
    hard = one(build(gpu_quota=4, cpu_quota=32, memory_quota_gi=128), QUOTA, "team-quota").inputs["spec"]["hard"]
    assert hard["requests.nvidia.com/gpu"] == "4"
    assert hard["requests.cpu"] == "32"
    assert hard["requests.memory"] == "128Gi"


def test_standard_team_cannot_run_at_the_critical_tier():
    quota = one(build(priority="standard"), QUOTA, "team-tier-quota").inputs["spec"]
    assert quota["hard"] == {"pods": "0"}
    expr = quota["scopeSelector"]["matchExpressions"][0]
    assert expr["scopeName"] == "PriorityClass" and expr["values"] == ["sahab-training-critical"]


def test_critical_team_has_no_tier_fence():
    assert len(of_type(build(priority="critical"), QUOTA)) == 1


def test_limit_range_defaults_containers_that_ask_for_nothing():
    limits = one(build(), "kubernetes:core/v1:LimitRange").inputs["spec"]["limits"][0]
    assert limits["type"] == "Container"
    assert limits["defaultRequest"]["cpu"] and limits["default"]["memory"]


def test_default_deny_then_only_the_needed_allowances():
    policies = {p.inputs["metadata"]["name"]: p.inputs["spec"] for p in of_type(build(), NP)}
    assert policies["default-deny"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    assert "ingress" not in policies["default-deny"] and "egress" not in policies["default-deny"]
    dns = policies["allow-dns"]["egress"][0]
    assert {p["port"] for p in dns["ports"]} == {53}
    assert dns["to"][0]["namespaceSelector"]["matchLabels"] == {"kubernetes.io/metadata.name": "kube-system"}
    intra = policies["allow-intra-namespace"]
    assert intra["ingress"] == [{"from": [{"podSelector": {}}]}] and intra["egress"] == [{"to": [{"podSelector": {}}]}]
    scrape = policies["allow-monitoring-scrape"]["ingress"][0]
    assert scrape["from"][0]["namespaceSelector"]["matchLabels"] == {"kubernetes.io/metadata.name": "monitoring"}
    assert scrape["ports"] == [{"protocol": "TCP", "port": "metrics"}]
    # Without storage endpoints to reach, nothing leaves the cluster.
    assert "allow-object-storage" not in policies


def test_storage_endpoint_blocks_are_the_only_https_egress():
    args = TeamNamespaceArgs(team=Team(name="research"), object_storage_cidrs=("10.40.0.0/16",))
    rule = network_policies(args)["allow-object-storage"]["egress"][0]
    assert rule == {"to": [{"ipBlock": {"cidr": "10.40.0.0/16"}}], "ports": [{"protocol": "TCP", "port": 443}]}


@pytest.mark.parametrize("cidr", ["0.0.0.0/0", "52.95.0.0/16", "10.0.0.0/7", "169.254.169.254/32", "not-a-cidr"])
def test_public_or_malformed_storage_blocks_are_refused_naming_the_field(cidr):
    with pytest.raises(ValidationError, match="object_storage_cidrs"):
        TeamNamespaceArgs(team=Team(name="research"), object_storage_cidrs=(cidr,))


def test_training_role_reads_only_and_its_token_is_not_mounted_by_default():
    resources = build()
    rules = one(resources, "kubernetes:rbac.authorization.k8s.io/v1:Role").inputs["rules"]
    verbs = {v for rule in rules for v in rule["verbs"]}
    assert verbs <= {"get", "list", "watch"}
    assert all("secrets" not in rule["resources"] for rule in rules)
    assert one(resources, "kubernetes:core/v1:ServiceAccount").inputs["automountServiceAccountToken"] is False
    binding = one(resources, "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding").inputs
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "training", "namespace": "research"}]
    assert binding["roleRef"]["kind"] == "Role"

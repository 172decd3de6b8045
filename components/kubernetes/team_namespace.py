"""TeamNamespace: one tenant's namespace, fenced in.

- Pod Security Admission enforces the team's level (restricted unless the team says baseline), with the same
  level audited and warned.
- A ResourceQuota caps CPU, memory and GPUs; a second one admits no pods at a training tier above the
  team's own. A LimitRange gives containers that ask for nothing a modest request and a memory limit.
- NetworkPolicies deny everything by default, then allow: DNS to kube-system, all traffic between the
  namespace's own pods (torchrun's c10d rendezvous on 29500 and the NCCL/gloo links that follow on
  ephemeral ports), Prometheus in the monitoring namespace to the pods' `metrics` port, and HTTPS egress
  to the fleet's storage endpoints (the cluster network's private range, `components.egress`). No rule reaches a
  public address; a public block is refused. Images need no rule: the kubelet pulls them, not the pods.
- RBAC: a `training` ServiceAccount bound to a Role that reads the namespace's pods and config maps, nothing
  else. Its token is not mounted unless a pod asks for it.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field, field_validator
from sahab.components.egress import public_problem
from sahab.components.fleet_config import Team
from sahab.components.kubernetes.common import MANAGED_BY, Args, pod_security_labels
from sahab.components.kubernetes.priority_classes import TIERS, priority_class_name

TRAINING_SERVICE_ACCOUNT = "training"
TRAINING_ROLE = "training-job"
METRICS_PORT_NAME = "metrics"
RENDEZVOUS_PORT = 29500


class TeamNamespaceArgs(Args):
    team: Team
    """The tenant: name, quotas, Pod Security level, training tier."""
    monitoring_namespace: str = "monitoring"
    """Namespace whose Prometheus may scrape the team's `metrics` ports. Default: monitoring."""
    object_storage_cidrs: tuple[str, ...] = ()
    """Where pods may open HTTPS connections: the private blocks that hold the fleet's storage endpoints (the
    Fleet passes the cluster network's range or the site's object store, `components.egress.storage_destinations`).
    Public blocks are refused. Default: none (no HTTPS egress out of the cluster)."""
    object_storage_port: int = Field(default=443, ge=1, le=65535)
    """The port pods may reach `object_storage_cidrs` on. Default: 443."""
    default_cpu_request: str = "500m"
    """CPU request of a container that states none. Default: 500m."""
    default_memory_request: str = "1Gi"
    """Memory request of a container that states none. Default: 1Gi."""
    default_memory_limit: str = "4Gi"
    """Memory limit of a container that states none. Default: 4Gi."""

    @field_validator("object_storage_cidrs")
    @classmethod
    def _private_only(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        problems = [p for p in map(public_problem, v) if p]
        if problems:
            raise ValueError(f"object_storage_cidrs: {problems[0]}")
        return v


def quota_hard(team: Team) -> dict[str, str]:
    """What the team may request in total; a time-sliced GPU share counts as one GPU."""
    return {"requests.cpu": str(team.cpu_quota), "requests.memory": f"{team.memory_quota_gi}Gi",
            "limits.memory": f"{team.memory_quota_gi}Gi", "requests.nvidia.com/gpu": str(team.gpu_quota)}


def tiers_above(tier: str) -> list[str]:
    """Training tiers whose priority is higher than `tier`: the team may not run pods there."""
    return [name for name, spec in TIERS.items() if spec.value > TIERS[tier].value]


def network_policies(args: TeamNamespaceArgs) -> dict[str, dict]:
    """NetworkPolicy specs by name: deny by default, then the few allowances the workload needs."""
    same_namespace = [{"podSelector": {}}]
    policies = {
        "default-deny": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
        "allow-dns": {
            "podSelector": {}, "policyTypes": ["Egress"],
            "egress": [{"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                                "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
                        "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}]},
        # torchrun: c10d rendezvous on 29500, then NCCL/gloo connections on ephemeral ports between the
        # same job's pods. Only pods of this namespace.
        "allow-intra-namespace": {
            "podSelector": {}, "policyTypes": ["Ingress", "Egress"],
            "ingress": [{"from": same_namespace}], "egress": [{"to": same_namespace}]},
        "allow-monitoring-scrape": {
            "podSelector": {}, "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {
                "kubernetes.io/metadata.name": args.monitoring_namespace}}}],
                "ports": [{"protocol": "TCP", "port": METRICS_PORT_NAME}]}]},
    }
    if args.object_storage_cidrs:
        policies["allow-object-storage"] = {
            "podSelector": {}, "policyTypes": ["Egress"],
            "egress": [{"to": [{"ipBlock": {"cidr": c}} for c in args.object_storage_cidrs],
                        "ports": [{"protocol": "TCP", "port": args.object_storage_port}]}]}
    return policies


def limit_range_spec(args: TeamNamespaceArgs) -> dict:
    team = args.team
    return {"limits": [{
        "type": "Container",
        "defaultRequest": {"cpu": args.default_cpu_request, "memory": args.default_memory_request},
        "default": {"memory": args.default_memory_limit},
        "max": {"cpu": str(team.cpu_quota), "memory": f"{team.memory_quota_gi}Gi"},
    }]}


TRAINING_RULES = [
    # Peers find each other's pods (rank discovery, health); the job reads its own configuration.
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]},
]


class TeamNamespace(pulumi.ComponentResource):
    """A team's namespace with Pod Security, quotas, limits, deny-by-default networking and training RBAC."""

    namespace: pulumi.Output[str]

    def __init__(self, name: str, args: TeamNamespaceArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:TeamNamespace", name, None, opts)
        team = args.team
        labels = {"sahab.io/team": team.name, **MANAGED_BY}
        ns = k8s.core.v1.Namespace(f"{name}-namespace", metadata={
            "name": team.name,
            "labels": {"kubernetes.io/metadata.name": team.name, **labels, **pod_security_labels(team.pod_security)},
            "annotations": {"sahab.io/priority-class": priority_class_name(team.priority)}},
            opts=pulumi.ResourceOptions(parent=self))
        in_ns = pulumi.ResourceOptions(parent=self, depends_on=[ns])

        def meta(object_name: str) -> dict:
            return {"name": object_name, "namespace": team.name, "labels": labels}

        k8s.core.v1.ResourceQuota(f"{name}-quota", metadata=meta("compute"), spec={"hard": quota_hard(team)},
                                  opts=in_ns)
        above = tiers_above(team.priority)
        if above:
            k8s.core.v1.ResourceQuota(f"{name}-tier-quota", metadata=meta("no-higher-tiers"), spec={
                "hard": {"pods": "0"},
                "scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In",
                                                        "values": [priority_class_name(t) for t in above]}]}},
                opts=in_ns)
        k8s.core.v1.LimitRange(f"{name}-limits", metadata=meta("defaults"), spec=limit_range_spec(args), opts=in_ns)
        for policy, spec in network_policies(args).items():
            k8s.networking.v1.NetworkPolicy(f"{name}-{policy}", metadata=meta(policy), spec=spec, opts=in_ns)

        sa = k8s.core.v1.ServiceAccount(f"{name}-training-sa", metadata=meta(TRAINING_SERVICE_ACCOUNT),
                                        automount_service_account_token=False, opts=in_ns)
        role = k8s.rbac.v1.Role(f"{name}-training-role", metadata=meta(TRAINING_ROLE), rules=TRAINING_RULES,
                                opts=in_ns)
        k8s.rbac.v1.RoleBinding(
            f"{name}-training-rolebinding", metadata=meta(TRAINING_ROLE),
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": TRAINING_ROLE},
            subjects=[{"kind": "ServiceAccount", "name": TRAINING_SERVICE_ACCOUNT, "namespace": team.name}],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[sa, role]))

        self.namespace = ns.metadata.name
        self.service_account = sa.metadata.name
        self.priority_class = priority_class_name(team.priority)
        self.register_outputs({"namespace": self.namespace, "serviceAccount": self.service_account,
                               "priorityClass": self.priority_class})

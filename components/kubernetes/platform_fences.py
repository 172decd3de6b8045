"""PlatformFences: the platform's own namespaces deny all traffic but the flows their components need.

`sahab-system` (the node validators), `monitoring` (kube-prometheus-stack), `kueue-system` and, where Sahab installs
the CNI (on-prem Cilium), `kube-system` each get a default-deny NetworkPolicy for ingress and egress, then one
policy per flow, from one list (`platform_flows`):

- every fenced namespace: the API server (its addresses on its port);
- monitoring and kueue-system: DNS (kube-system's kube-dns pods, 53 UDP and TCP);
- monitoring: its pods among themselves; Prometheus scraping every pod and the nodes (node-exporter 9100, the
  kubelet 10250); the operator's admission webhook (10250); Alertmanager reaching its receivers on their ports,
  in the private ranges (no NetworkPolicy opens a public address: SAHAB-K8S-020; a receiver outside the network is
  reached through a relay inside it, as prod's mail relay is);
- kueue-system: its admission webhook (9443), its visibility API (8082), Prometheus scraping its metrics (8443),
  and MultiKueue reaching worker clusters' API servers in the fleet's cloud networks (443);
- kube-system on-prem: DNS from every pod and node to CoreDNS, CoreDNS forwarding to the site's resolvers (53, in
  the private ranges) and Prometheus scraping it (9153). Cilium's agent and operator run on the host network:
  NetworkPolicies do not select them, their own ports (health 4240, VXLAN 8472, WireGuard 51871) are the nodes'
  firewall's.

The API server calls webhooks from wherever the platform puts it (control-plane hosts, EKS's ENIs, AKS's
konnectivity tunnel), so webhook ports accept any source; TLS guards them. Each allow policy is annotated with the
flow it opens and the default-deny policy with every flow the namespace needs (`sahab.io/required-flows`), which
the readiness verdict checks against all the namespace's policies (sahab/readiness/fences.py): a fence that cuts
one is "not ready", naming it.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field
from sahab.components.egress import PRIVATE_RANGES
from sahab.components.kinds import KindName
from sahab.components.kinds import get as kind_spec
from sahab.components.kubernetes.common import MANAGED_BY, Args

if TYPE_CHECKING:
    from sahab.components.fleet_config import Cluster, FleetConfig

FLOW_ANNOTATION = "sahab.io/flow"
REQUIRED_ANNOTATION = "sahab.io/required-flows"
DEFAULT_DENY = "default-deny"
ANYWHERE = "0.0.0.0/0"
KUBE_DNS = {"k8s-app": "kube-dns"}
PROMETHEUS = {"app.kubernetes.io/name": "prometheus"}
ALERTMANAGER = {"app.kubernetes.io/name": "alertmanager"}
# kube-prometheus-stack 88.5.3: the operator pods' `app` label (templates/prometheus-operator/deployment.yaml)
# and its webhook port (values.yaml prometheusOperator.tls.internalPort).
OPERATOR = {"app": "kube-prometheus-stack-operator"}
OPERATOR_WEBHOOK = 10250
# kueue 0.19.2 manager container ports (templates/manager/manager.yaml).
KUEUE_WEBHOOK, KUEUE_VISIBILITY, KUEUE_METRICS = 9443, 8082, 8443
NODE_EXPORTER, KUBELET, COREDNS_METRICS = 9100, 10250, 9153


@dataclass(frozen=True)
class Flow:
    """One connection a platform component needs, as a NetworkPolicy sees it."""

    name: str
    namespace: str
    direction: str  # egress | ingress
    pods: dict  # the namespace's pods it concerns (matchLabels; {}: all)
    port: int | None  # None: every port
    protocol: str = "TCP"
    peer_namespace: str | None = None  # the peer pods' namespace ("*": any), or None for address blocks
    peer_pods: dict | None = None
    cidrs: tuple[str, ...] = ()

    def rule(self) -> dict:
        if self.peer_namespace is not None:
            selector: dict = {"podSelector": {"matchLabels": dict(self.peer_pods or {})}}
            selector["namespaceSelector"] = {} if self.peer_namespace == "*" else {
                "matchLabels": {"kubernetes.io/metadata.name": self.peer_namespace}}
            peers = [selector]
        else:
            peers = [{"ipBlock": {"cidr": c}} for c in self.cidrs]
        rule: dict = {"to" if self.direction == "egress" else "from": peers}
        if self.port is not None:
            rule["ports"] = [{"port": self.port, "protocol": self.protocol}]
        return rule

    def describe(self) -> str:
        where = "any namespace" if self.peer_namespace == "*" else self.peer_namespace
        peer = f"pods {self.peer_pods or 'any'} in {where}" if self.peer_namespace is not None else \
            ", ".join(self.cidrs)
        port = f"{self.port}/{self.protocol}" if self.port is not None else "every port"
        return f"{self.name} ({self.direction} {'to' if self.direction == 'egress' else 'from'} {peer}, {port})"


class FenceArgs(Args):
    cluster_kind: KindName
    """The cluster's kind (components.kinds): where Sahab installs the CNI (on-prem Cilium), its namespace
    (kube-system) is fenced too."""
    api_server: tuple[str, ...] = Field(min_length=1)
    """Address blocks the API server answers from (on-prem: control-plane hosts and VIP; EKS/AKS: the cluster's
    private network). Required."""
    api_port: int = 443
    """The API server's port. Default: 443 (6443 on kubeadm)."""
    nodes: tuple[str, ...] = ()
    """Address blocks of the nodes, where Prometheus scrapes node-exporter and the kubelet. Default: none."""
    receiver_ports: tuple[int, ...] = ()
    """Ports Alertmanager's receivers listen on (the email smarthost's, 443 for webhooks). Default: none."""
    cloud_networks: tuple[str, ...] = ()
    """The fleet's cloud networks, where MultiKueue reaches worker clusters' API servers. Default: none."""
    monitoring: bool = True
    """Whether the cluster runs the monitoring stack. Default: true."""
    validator: bool = True
    """Whether the cluster runs the node validators (sahab-system). Default: true."""


KUBEADM_API_PORT = 6443


def _host_block(address: str) -> str:
    return str(ipaddress.ip_network(address))


def fence_args(config: FleetConfig, cluster: Cluster) -> FenceArgs:
    """The network facts of one cluster the fences name: its API server, its nodes, Alertmanager's receivers, the
    fleet's cloud networks."""
    clouds = tuple(n for n in (config.clouds.aws.vpc_cidr if config.clouds.aws else None,
                               config.clouds.azure.vnet_cidr if config.clouds.azure else None) if n)
    spec = kind_spec(cluster.kind)
    if spec.cloud is None:  # the site's own hosts
        site = config.site(cluster.site)
        members = set(cluster.control_plane_hosts) | {h for p in config.pools_of(cluster.name) for h in p.hosts}
        nodes = tuple(_host_block(h.address) for h in site.hosts if h.name in members)
        api = tuple(_host_block(h.address) for h in site.hosts if h.name in cluster.control_plane_hosts)
        api += (_host_block(cluster.control_plane_vip),) if cluster.control_plane_vip else ()
        network = {"api_server": api, "api_port": KUBEADM_API_PORT, "nodes": nodes}
    else:
        own = spec.network(config)
        network = {"api_server": (own,), "api_port": 443, "nodes": (own,)}
    ports = []
    for receiver in config.monitoring.alerting.receivers:
        if receiver.type == "email" and receiver.smarthost:
            ports.append(int(receiver.smarthost.rsplit(":", 1)[1]))
        elif receiver.url and receiver.url.split("//", 1)[-1].split("/", 1)[0].rpartition(":")[2].isascii() \
                and receiver.url.split("//", 1)[-1].split("/", 1)[0].rpartition(":")[2].isdigit():
            ports.append(int(receiver.url.split("//", 1)[-1].split("/", 1)[0].rpartition(":")[2]))
        else:
            ports.append(443)
    workload = config.workload
    return FenceArgs(cluster_kind=cluster.kind, receiver_ports=tuple(ports), cloud_networks=clouds,
                     monitoring=config.monitoring.enabled, validator=workload.enabled and workload.validate_nodes,
                     **network)


def platform_flows(args: FenceArgs) -> list[Flow]:
    """Every flow of every fenced namespace of the cluster."""
    cni = "cilium" in kind_spec(args.cluster_kind).addons  # Sahab's CNI lives in kube-system
    namespaces = ["kueue-system"] + (["monitoring"] if args.monitoring else []) + \
        (["sahab-system"] if args.validator else []) + (["kube-system"] if cni else [])
    flows = [Flow("API server", ns, "egress", {}, args.api_port, cidrs=args.api_server) for ns in namespaces]
    for ns in ("monitoring", "kueue-system"):
        if ns in namespaces:
            flows += [Flow(f"DNS ({p})", ns, "egress", {}, 53, p, "kube-system", KUBE_DNS) for p in ("UDP", "TCP")]
    if "monitoring" in namespaces:
        flows += [
            Flow("within monitoring", "monitoring", "ingress", {}, None, peer_namespace="monitoring", peer_pods={}),
            Flow("within monitoring", "monitoring", "egress", {}, None, peer_namespace="monitoring", peer_pods={}),
            Flow("Prometheus scrapes pods", "monitoring", "egress", PROMETHEUS, None, peer_namespace="*",
                 peer_pods={}),
            Flow("the operator's admission webhook", "monitoring", "ingress", OPERATOR, OPERATOR_WEBHOOK,
                 cidrs=(ANYWHERE,)),
        ]
        if args.nodes:
            flows += [Flow(f"Prometheus scrapes {what}", "monitoring", "egress", PROMETHEUS, port, cidrs=args.nodes)
                      for what, port in (("node-exporter", NODE_EXPORTER), ("the kubelet", KUBELET))]
        flows += [Flow("Alertmanager notifies its receivers", "monitoring", "egress", ALERTMANAGER, port,
                       cidrs=PRIVATE_RANGES) for port in sorted(set(args.receiver_ports))]
    flows += [Flow("Kueue's admission webhook", "kueue-system", "ingress", {}, KUEUE_WEBHOOK, cidrs=(ANYWHERE,)),
              Flow("Kueue's visibility API", "kueue-system", "ingress", {}, KUEUE_VISIBILITY, cidrs=(ANYWHERE,))]
    if args.monitoring:
        flows.append(Flow("Prometheus scrapes Kueue", "kueue-system", "ingress", {}, KUEUE_METRICS,
                          peer_namespace="monitoring", peer_pods=PROMETHEUS))
    if args.cloud_networks:
        flows.append(Flow("MultiKueue reaches worker clusters", "kueue-system", "egress", {}, 443,
                          cidrs=args.cloud_networks))
    if "kube-system" in namespaces:
        for p in ("UDP", "TCP"):
            flows.append(Flow(f"DNS from every pod ({p})", "kube-system", "ingress", KUBE_DNS, 53, p, "*", {}))
            if args.nodes:
                flows.append(Flow(f"DNS from the nodes ({p})", "kube-system", "ingress", KUBE_DNS, 53, p,
                                  cidrs=args.nodes))
            flows.append(Flow(f"CoreDNS forwards upstream ({p})", "kube-system", "egress", KUBE_DNS, 53, p,
                              cidrs=PRIVATE_RANGES))
        if args.monitoring:
            flows.append(Flow("Prometheus scrapes CoreDNS", "kube-system", "ingress", KUBE_DNS, COREDNS_METRICS,
                              peer_namespace="monitoring", peer_pods=PROMETHEUS))
    return flows


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:50]


def policy_specs(flows: list[Flow]) -> dict[tuple[str, str], tuple[dict, dict]]:
    """(namespace, name) -> (annotations, spec): a default-deny per namespace, then one policy per flow."""
    specs: dict[tuple[str, str], tuple[dict, dict]] = {}
    for ns in dict.fromkeys(f.namespace for f in flows):
        required = [asdict(f) for f in flows if f.namespace == ns]
        specs[(ns, DEFAULT_DENY)] = ({REQUIRED_ANNOTATION: json.dumps(required, sort_keys=True)},
                                     {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]})
    for flow in flows:
        name = f"allow-{_slug(flow.name)}-{flow.direction}"
        annotations, spec = specs.get((flow.namespace, name), ({FLOW_ANNOTATION: flow.name}, None))
        if spec is None:
            spec = {"podSelector": {"matchLabels": dict(flow.pods)}, "policyTypes": [flow.direction.capitalize()],
                    flow.direction: []}
        spec[flow.direction].append(flow.rule())
        specs[(flow.namespace, name)] = (annotations, spec)
    return specs


class PlatformFences(pulumi.ComponentResource):
    """Default-deny NetworkPolicies with the platform's own flows in its namespaces."""

    def __init__(self, name: str, args: FenceArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:PlatformFences", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        for (namespace, policy), (notes, spec) in policy_specs(platform_flows(args)).items():
            k8s.networking.v1.NetworkPolicy(
                f"{name}-{namespace}-{policy}", metadata={"name": policy, "namespace": namespace,
                                                          "labels": MANAGED_BY, "annotations": notes},
                spec=spec, opts=child)
        self.register_outputs({})

"""Cilium: the CNI of an on-prem (kubeadm) cluster, installed from Pulumi once the API server is up.

kubeadm brings no pod network: until a CNI runs, nodes stay NotReady and nothing else can start. Cilium
gives pods their addresses (kubeadm's controller-manager hands each node a slice of the pod subnet), enforces
Kubernetes NetworkPolicies (so the platform's default-deny policies mean something), and encrypts pod-to-pod
traffic between nodes with WireGuard. kube-proxy (installed by kubeadm) keeps serving Services.

Every other release on the cluster must wait for it: `after_cni` is the transformation that makes a
component and all its children depend on the release. The host firewall (ansible role sahab_os) opens the
ports named here: VXLAN, WireGuard and the health checks.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field, field_validator
from sahab.components.artifacts import CATALOG, Images
from sahab.components.kubernetes.common import Args

CHART = "cilium"
CHART_VERSION = CATALOG["cilium-chart"].version
CHART_REPOSITORY = CATALOG["cilium-chart"].upstream


class CiliumArgs(Args):
    api_server: str
    """host:port of the cluster's API server (its VIP on an HA control plane): Cilium's agents reach it
    directly, without depending on Service routing that is not up before them."""
    operator_replicas: int = Field(default=1, ge=1, le=3)
    """Cilium operator replicas: 2 on HA control planes. Default: 1."""
    namespace: str = "kube-system"
    """Where Cilium runs (the chart's standard place). Default: kube-system."""
    images: Images = Images()
    """Where the chart (pinned, 1.19.4) and its images come from (components.artifacts). Default: upstream."""

    @field_validator("api_server")
    @classmethod
    def _host_port(cls, v: str) -> str:
        split_host_port(v)
        return v


def split_host_port(endpoint: str) -> tuple[str, int]:
    """(host, port) of `host:port`, an IPv6 host given in brackets (`[fd00::10]:6443`, as kubeadm's
    controlPlaneEndpoint writes it) and returned without them: the chart hands k8sServiceHost to the agents as
    KUBERNETES_SERVICE_HOST, which Kubernetes clients join to the port with brackets of their own."""
    host, sep, port = endpoint.rpartition(":")
    bracketed = host.startswith("[") and host.endswith("]")
    if bracketed:
        host = host[1:-1]
    if not sep or not host or not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise ValueError(f"{endpoint!r} is not host:port (an IPv6 host in brackets: [fd00::10]:6443)")
    if (":" in host and not bracketed) or "[" in host or "]" in host:
        raise ValueError(f"{endpoint!r} is not host:port: an IPv6 host goes in brackets, as in [fd00::10]:6443")
    return host, int(port)


def helm_values(args: CiliumArgs) -> dict:
    """The chart values that matter; everything else keeps the chart's defaults."""
    host, port = split_host_port(args.api_server)
    return {
        "k8sServiceHost": host,
        "k8sServicePort": port,
        "kubeProxyReplacement": False,
        "ipam": {"mode": "kubernetes"},
        "routingMode": "tunnel",
        "tunnelProtocol": "vxlan",
        # Pod-to-pod traffic between nodes goes through WireGuard (cilium-config enable-wireguard). Strict mode
        # (encryption.strictMode) stays off, so a pod's first packets to an endpoint its node has not yet learnt
        # can still leave unencrypted (Cilium's transparent-encryption docs, known issues).
        "encryption": {"enabled": True, "type": "wireguard"},
        # "default": a pod selected by any NetworkPolicy allows only what the policies allow.
        "policyEnforcementMode": "default",
        # NetworkPolicy ipBlocks select node addresses too: the platform's fences name the API server on the
        # control-plane hosts and the nodes Prometheus scrapes by address (values.yaml policyCIDRMatchMode,
        # templates/cilium-configmap.yaml policy-cidr-match-mode).
        "policyCIDRMatchMode": ["nodes"],
        "hubble": {"enabled": True, "relay": {"enabled": False}, "ui": {"enabled": False}},
        # Every image the chart pulls with these values, from the fleet's registry. The separate Envoy DaemonSet
        # stays off (its image would be one more to mirror); l7Proxy keeps its default (true), so the agent runs
        # the L7 proxy itself (cilium-config external-envoy-proxy "false").
        "image": args.images.values("cilium"),
        "operator": {"replicas": args.operator_replicas, "image": args.images.values("cilium-operator")},
        "envoy": {"enabled": False},
    }


class Cilium(pulumi.ComponentResource):
    """Cilium as one Helm release through the cluster's Kubernetes provider (passed in `opts`)."""

    def __init__(self, name: str, args: CiliumArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:kubernetes:Cilium", name, None, opts)
        chart, version, repository = args.images.chart("cilium")
        self.release = k8s.helm.v3.Release(
            f"{name}-release",
            name="cilium",
            chart=chart,
            version=version,
            repository_opts=repository,
            namespace=args.namespace,
            values=helm_values(args),
            atomic=True,
            opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"release": self.release.name})


def after_cni(cni: Cilium) -> pulumi.ResourceTransformation:
    """A transformation that makes a resource and every resource below it depend on the CNI's release."""

    def transform(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult:
        opts = pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(depends_on=[cni.release]))
        return pulumi.ResourceTransformationResult(args.props, opts)

    return transform

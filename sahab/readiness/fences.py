"""The platform's fences let through what its components need: every flow a fenced namespace requires (listed on
its default-deny NetworkPolicy, components/kubernetes/platform_fences.py) is allowed by the namespace's
NetworkPolicies as the API server's NetworkPolicy semantics decide: a pod selected by a policy of a direction is
isolated in that direction and gets only what some selecting policy's rule allows (ports and peers alike). A flow
that is cut is "not ready", named. Values a preview does not know yet give no verdict.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from sahab.components.kubernetes.platform_fences import REQUIRED_ANNOTATION, Flow
from sahab.readiness.common import get, string_labels, unknown
from sahab.readiness.readiness_types import Cluster, Problem
from sahab.readiness.workloads import describe


def _matches(selector: Any, labels: dict[str, str]) -> bool:
    """A label selector (matchLabels, matchExpressions) against labels; {} or absent matches everything."""
    if not isinstance(selector, dict):
        return selector is None
    if any(labels.get(k) != str(v) for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        if (operator == "In" and labels.get(key) not in values) or (operator == "NotIn" and labels.get(key) in values) \
                or (operator == "Exists" and key not in labels) or (operator == "DoesNotExist" and key in labels):
            return False
    return True


def _everything(selector: Any) -> bool:
    return isinstance(selector, dict) and not selector.get("matchLabels") and not selector.get("matchExpressions")


def _ports_allow(ports: Any, flow: Flow) -> bool:
    if not ports:
        return True
    if flow.port is None:
        return False  # the flow needs every port; the rule opens some
    for entry in ports:
        if (entry.get("protocol") or "TCP") != flow.protocol:
            continue
        port, end = entry.get("port"), entry.get("endPort")
        if port is None or port == flow.port or (isinstance(port, int) and isinstance(end, int)
                                                 and port <= flow.port <= end):
            return True
    return False


def _covers(block: Any, cidr: str) -> bool:
    try:
        net, wanted = ipaddress.ip_network(block["cidr"], strict=False), ipaddress.ip_network(cidr, strict=False)
        excepted = [ipaddress.ip_network(e, strict=False) for e in block.get("except") or []]
    except (KeyError, TypeError, ValueError):
        return False
    return wanted.version == net.version and wanted.subnet_of(net) and not any(wanted.overlaps(e) for e in excepted)


def _peers_allow(peers: Any, flow: Flow, namespace: str, namespaces: dict[str, dict[str, str]]) -> bool:
    if not peers:
        return True
    if flow.peer_namespace is None:  # address blocks: each must be covered by one ipBlock
        return all(any(isinstance(p, dict) and _covers(p.get("ipBlock"), c) for p in peers) for c in flow.cidrs)
    wanted_pods = flow.peer_pods or {}
    for peer in peers:
        if not isinstance(peer, dict) or "ipBlock" in peer:
            continue
        if "podSelector" not in peer:
            pods_ok = True  # every pod of the selected namespaces
        elif wanted_pods:
            pods_ok = _matches(peer["podSelector"], wanted_pods)
        else:  # the flow needs any pod there: the rule must select them all
            pods_ok = _everything(peer["podSelector"])
        selector = peer.get("namespaceSelector")
        if flow.peer_namespace == "*":
            ns_ok = "namespaceSelector" in peer and _everything(selector)
        elif "namespaceSelector" not in peer:
            ns_ok = flow.peer_namespace == namespace
        else:
            labels = namespaces.get(flow.peer_namespace, {}) | {"kubernetes.io/metadata.name": flow.peer_namespace}
            ns_ok = _matches(selector, labels)
        if pods_ok and ns_ok:
            return True
    return False


def allowed(flow: Flow, policies: list[dict], namespaces: dict[str, dict[str, str]]) -> bool:
    direction = flow.direction
    selecting = []
    for spec in policies:
        types = spec.get("policyTypes") or (["Ingress", "Egress"] if "egress" in spec else ["Ingress"])
        if direction.capitalize() in types and _matches(spec.get("podSelector"), dict(flow.pods)):
            selecting.append(spec)
    if not selecting:
        return True  # not isolated in that direction
    side = "to" if direction == "egress" else "from"
    return any(_ports_allow(rule.get("ports"), flow) and _peers_allow(rule.get(side), flow, flow.namespace, namespaces)
               for spec in selecting for rule in spec.get(direction) or [] if isinstance(rule, dict))


def check(cluster: Cluster, mine: set[str]) -> list[Problem]:
    policies = [p for p in cluster.of_kind("NetworkPolicy")]
    if any(unknown([get(p.inputs, "metadata"), get(p.inputs, "spec")]) for p in policies):
        return []
    by_namespace: dict[str, list[dict]] = {}
    for policy in policies:
        by_namespace.setdefault(str(get(policy.inputs, "metadata", "namespace") or "default"), []).append(
            policy.inputs.get("spec") or {})
    namespaces = {str(get(n.inputs, "metadata", "name")): string_labels(get(n.inputs, "metadata", "labels"))
                  for n in cluster.of_kind("Namespace")}
    problems = []
    for fence in (p for p in policies if p.urn in mine):
        raw = get(fence.inputs, "metadata", "annotations", REQUIRED_ANNOTATION)
        if not isinstance(raw, str):
            continue
        for item in json.loads(raw):
            flow = Flow(**{**item, "cidrs": tuple(item.get("cidrs") or ())})
            if not allowed(flow, by_namespace.get(flow.namespace, []), namespaces):
                problems.append(Problem(cluster.name, describe(fence), f"the {flow.namespace} fence cuts "
                                        f"{flow.describe()}: the component that needs it cannot work"))
    return problems

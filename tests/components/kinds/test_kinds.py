"""The cluster kinds are one registry (components/kinds) and the add-ons another (components/addons): nothing else
spells out the kinds, nothing reads Fleet's private attributes, and the schema, the registries and the kind
registry name the same kinds."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest
from sahab.components.addons import Target, addons
from sahab.components.fleet_config import Cluster, NodePool, parse_fleet
from sahab.components.kinds import get, kinds
from sahab.components.registry_config import Registries
from sahab.components.registry_plan import artifacts_for

ROOT = Path(__file__).resolve().parents[3]
# The registries themselves, and the schema (components/config.py, becoming components/fleet_config/), which
# states the allowed values of `kind`.
EXEMPT = ("components/kinds/", "components/addons/", "components/config.py", "components/fleet_config/")
# Modules whose per-kind branches are still to move into their kind's spec (issue 27 item 2). None are left: the
# readiness checks ask the kind's readiness adapter, the doctor the kind's spec. This list only shrinks.
NOT_YET: set[str] = set()


def _sources() -> list[Path]:
    return sorted(p for folder in ("components", "sahab", "stacks", "policies") for p in (ROOT / folder).rglob("*.py"))


def _kind_literals(node: ast.AST, names: set[str]) -> list[str]:
    """Kind names a comparison or a Literal[...] spells out."""
    found = []
    if isinstance(node, ast.Compare):
        sides = (node.left, *node.comparators)
        # A comparison about a kind (`cluster.kind == "eks"`, `kind in ("eks", "aks")`), not, say, an AWS service.
        if any("kind" in ast.unparse(side) for side in sides if not isinstance(side, ast.Constant)):
            for side in sides:
                items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                found += [i.value for i in items if isinstance(i, ast.Constant) and i.value in names]
    elif isinstance(node, ast.Subscript) and getattr(node.value, "id", None) == "Literal":
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        found += [i.value for i in items if isinstance(i, ast.Constant) and i.value in names]
    return found


def test_no_module_outside_the_registry_compares_with_a_kind():
    names = set(kinds())
    offenders = {}
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(EXEMPT):
            continue
        tree = ast.parse(path.read_text(), rel)
        spelled = [(n.lineno, kind) for n in ast.walk(tree) for kind in _kind_literals(n, names)]
        if spelled:
            offenders[rel] = spelled
    assert set(offenders) <= NOT_YET, {k: v for k, v in offenders.items() if k not in NOT_YET}
    assert set(offenders) >= NOT_YET, f"no longer spelling out kinds, drop from NOT_YET: {NOT_YET - set(offenders)}"


def test_no_module_reads_fleets_private_attributes():
    found = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                    and isinstance(node.value, ast.Name) and node.value.id == "fleet":
                found.append(f"{rel}:{node.lineno} fleet.{node.attr}")
    assert not found


def test_schema_registries_and_kind_registry_name_the_same_kinds():
    union_members = typing.get_args(typing.get_args(Cluster)[0])  # Annotated[A | B | C, discriminator]
    assert {typing.get_args(m.model_fields["kind"].annotation)[0]: m for m in union_members} == \
        {name: spec.cluster_model for name, spec in kinds().items()}
    assert set(Registries.model_fields) == set(kinds())
    for name, spec in kinds().items():
        assert spec.name == name
        assert spec.registry.model is typing.get_args(Registries.model_fields[name].annotation)[0]
        assert set(spec.addons) <= set(addons()), f"{name} names an unknown add-on"


def test_an_unknown_kind_is_refused_naming_the_known_ones():
    with pytest.raises(KeyError, match="unknown cluster kind 'gke'; known: eks, aks, onprem"):
        get("gke")


def _pool(accelerator: str) -> NodePool:
    return NodePool(name="pool", cluster="main", accelerator=accelerator, instance_type="x", min_size=0, max_size=1)


@pytest.mark.parametrize(("kind", "accelerator", "monitoring", "expected"), [
    ("eks", "cpu", False, {"kueue", "efa-device-plugin", "cluster-autoscaler"}),
    ("eks", "h100", True, {"kueue", "monitoring", "gpu-operator", "efa-device-plugin", "cluster-autoscaler"}),
    ("aks", "t4", False, {"kueue", "gpu-operator"}),
    ("onprem", "cpu", True, {"kueue", "monitoring", "cilium", "local-path-provisioner"}),
])
def test_which_clusters_get_which_add_ons(kind, accelerator, monitoring, expected):
    target = Target(get(kind), (_pool(accelerator),), monitoring)
    assert {name for name, addon in addons().items() if addon.wanted(target)} == expected


def test_the_registry_plan_pulls_what_the_add_ons_of_a_kind_pull(smb_fleet):
    """smb: on-prem CPU clusters. Every artifact the registry plan lists comes from an add-on that cluster gets or
    from its kind's own nodes, and every such add-on's artifacts are listed."""
    spec, created = get("onprem"), [c for c in smb_fleet.clusters if c.kind == "onprem"]
    listed = {a.source for a in artifacts_for(smb_fleet, "onprem")}
    targets = [Target(spec, smb_fleet.pools_of(c.name), smb_fleet.monitoring.enabled) for c in created]
    wanted = [a for a in addons().values() if any(a.wanted(t) for t in targets)]
    expected = {x.source for a in wanted for x in a.artifacts(smb_fleet, spec, created)} | \
        {x.source for x in spec.node_artifacts(smb_fleet, created)}
    assert listed == expected
    assert not any(a.component == "efa-device-plugin" for a in artifacts_for(smb_fleet, "onprem"))


@pytest.fixture(scope="module")
def smb_fleet():
    import yaml

    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.smb.yaml").read_text())
    return parse_fleet(doc["config"]["sahab:fleet"])


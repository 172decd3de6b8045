"""What the stacks' Helm releases make their clusters pull, read through the charts' fact sheets from the planned
values: every reference is a valid OCI reference and is in the stack's seed list (`sahab registry list`), with no
digest recorded and with a digest of the real shape recorded for every artifact of prod's seed list."""

from __future__ import annotations

import hashlib
import re
import shutil

import pytest
import yaml
from sahab.components.chart_facts import sheet
from sahab.components.image_refs import valid_reference

from sahab.engine import plan
from sahab.project import find_project
from sahab.readiness.clusters import discover
from sahab.readiness.pulls import RELEASE_TYPES, release_pulls
from sahab.registry.stack import entries, seeded
from tests.conftest import ROOT, STACKS
from tests.fleets import prod_with_only
from tests.helpers import planned_stack


def pulls_of(resources) -> list[tuple[str, str, str, str]]:
    """(cluster kind, release, image, reference) for every image every release's chart would pull."""
    found = []
    for cluster in discover(resources):
        for release in (o for o in cluster.objects if o.type in RELEASE_TYPES):
            pulled = release_pulls(release, cluster)
            assert pulled is not None, f"{release.name}: its chart version has no fact sheet"
            found += [(cluster.kind, release.name, image, ref) for image, ref in pulled]
    return found


def assert_all_seeded(resources, held: dict[str, set[str]]) -> list[tuple[str, str, str, str]]:
    found = pulls_of(resources)
    for kind, release, image, reference in found:
        assert valid_reference(reference), f"{release}: {image} as {reference!r}"
        assert reference in held[kind], f"{release} pulls {reference} ({image}), not in the {kind} seed list"
    return found


@pytest.mark.parametrize("stack", STACKS)
def test_every_reference_a_release_pulls_is_valid_and_seeded(stack):
    held = seeded(find_project(ROOT), stack)
    found = assert_all_seeded(planned_stack(stack).resources, held)
    assert found or stack == "burst"  # burst installs no chart: its pools join prod's clusters
    assert all("@" not in ref for *_, ref in found)  # nothing recorded in this repository


def release_values(resources, chart: str) -> list[dict]:
    return [r.inputs["values"] for r in resources if r.type in RELEASE_TYPES
            and str(r.inputs.get("chart", "")).rstrip("/").endswith(f"/{chart}")]


@pytest.mark.parametrize("stack", ["prod", "smb"])
def test_the_charts_run_what_their_versions_expect(stack):
    resources = planned_stack(stack).resources
    for values in release_values(resources, "gpu-operator"):
        facts = sheet("gpu-operator", "v26.7.0")
        assert values["node-feature-discovery"]["image"]["tag"] == "v0.19.0"
        assert values["validator"]["image"] == values["operator"]["image"] == "gpu-operator"
        assert values["migManager"]["version"] == facts.image("mig-manager").tag == "v0.15.0"
    for values in release_values(resources, "kube-prometheus-stack"):
        exporter = values["prometheus-node-exporter"]["image"]
        assert exporter["tag"] + ("-distroless" if exporter["distroless"] else "") == "v1.12.1-distroless"
    accounts = {(r.inputs["metadata"]["namespace"], r.inputs["metadata"]["name"]) for r in resources
                if r.type == "kubernetes:core/v1:ServiceAccount"}
    provisioners = [r for r in resources if r.type == "kubernetes:apps/v1:Deployment"
                    and r.inputs["metadata"]["name"] == "local-path-provisioner"]
    assert provisioners
    for deployment in provisioners:
        command = deployment.inputs["spec"]["template"]["spec"]["containers"][0]["command"]
        helper = command[command.index("--service-account-name") + 1]
        assert (deployment.inputs["metadata"]["namespace"], helper) in accounts


def fake_digest(reference: str) -> str:
    return "sha256:" + hashlib.sha256(reference.encode()).hexdigest()


@pytest.fixture(scope="module")
def pinned_prod(tmp_path_factory):
    """prod planned from a copy of the project whose digests.lock records a digest for every artifact of prod's
    seed list, as `sahab registry pin` writes it. One on-prem cluster stands for both: prod's two pull the same
    charts and images (what `pulls_of` finds for auh-onprem and dxb-onprem is the same set), and a cluster less
    is seconds less of every run."""
    program = tmp_path_factory.mktemp("pinned")
    shutil.copy(ROOT / "Pulumi.yaml", program / "Pulumi.yaml")
    shutil.copytree(ROOT / "stacks", program / "stacks")
    (program / ".venv").symlink_to(ROOT / ".venv")
    stack = program / "stacks" / "Pulumi.prod.yaml"
    doc = yaml.safe_load(stack.read_text())
    doc["config"]["sahab:fleet"] = prod_with_only("auh-onprem", "eks-main", "aks-main")
    stack.write_text(yaml.safe_dump(doc))
    _, listed = entries(find_project(ROOT), "prod", digests={})
    lock = {e.target.removeprefix("oci://"): fake_digest(e.target) for e in listed}
    (program / "stacks" / "digests.lock").write_text("".join(f"{r} {d}\n" for r, d in sorted(lock.items())))
    return plan(program, "prod").resources, seeded(find_project(program), "prod"), lock


def test_with_every_digest_recorded_every_pull_is_pinned_valid_and_seeded(pinned_prod):
    resources, held, lock = pinned_prod
    found = assert_all_seeded(resources, held)
    assert found
    for *_, reference in found:
        name, _, digest = reference.partition("@")
        assert digest == lock[name], f"{reference}: not the digest recorded for the tag it pulls"


def test_with_digests_each_chart_spells_them_its_own_way(pinned_prod):
    resources, _, lock = pinned_prod
    for values in release_values(resources, "gpu-operator"):
        running = {k: v for k, v in values.items() if isinstance(v, dict) and "version" in v
                   and v.get("enabled", True) is not False}  # the driver and toolkit only where the operator runs them
        versions = [v["version"] for v in running.values()]
        if "driver" in running:
            versions.append(values["driver"]["manager"]["version"])
        assert versions and not [v for v in versions if v.startswith("sha256:")]  # never a bare digest
        assert all(re.fullmatch(r"[\w.-]+@sha256:[0-9a-f]{64}", v) for v in versions), versions
    for values in release_values(resources, "kube-prometheus-stack"):
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", values["kube-state-metrics"]["image"]["sha"])
        own = [values["prometheusOperator"]["image"], values["prometheus"]["prometheusSpec"]["image"],
               values["alertmanager"]["alertmanagerSpec"]["image"], values["grafana"]["image"]]
        assert all(re.fullmatch(r"[0-9a-f]{64}", image["sha"]) for image in own)
        exporter = values["prometheus-node-exporter"]["image"]
        pulled = f"{exporter['registry']}/{exporter['repository']}:{exporter['tag']}-distroless"
        assert exporter["digest"] == lock[pulled]

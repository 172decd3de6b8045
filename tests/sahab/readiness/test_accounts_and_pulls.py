"""Readiness knows service accounts and what charts pull: an on-prem cluster with Sahab's platform (local-path
provisioner, GPU operator, monitoring) is ready as planned; each fault of issue 31's family is "not ready", named."""

from __future__ import annotations

import copy

import pytest
from sahab.components.artifacts import CATALOG, Images
from sahab.components.fleet_config import NodePool
from sahab.components.registry_plan import pulled

from sahab.readiness import judge
from tests.sahab.readiness.builders import onprem_cluster, onprem_node, onprem_pool, planned, platform

HOST = "registry.site.example.ae:5000"
GPU = NodePool(name="gpu", cluster="site", accelerator="h100", gpus_per_node=8, hosts=("g1",))
CPU = NodePool(name="cpu", cluster="site", hosts=("c1",))


@pytest.fixture(scope="module")
def site():
    def program():
        provider = onprem_cluster("site", [onprem_pool(CPU, [onprem_node("c1")]),
                                           onprem_pool(GPU, [onprem_node("g1", 224, 2048, 8)])])
        platform(provider, "onprem", (CPU, GPU), images=Images(host=HOST))

    return planned(program)


@pytest.fixture(scope="module")
def seeded():
    images = Images(host=HOST)
    return {"onprem": {ref for a in CATALOG.values() if a.kind == "image" for ref in pulled(images, a, [])}}


def changed(resources, match, change):
    out, hit = [], False
    for res in resources:
        if match(res):
            res = copy.deepcopy(res)
            change(res.inputs)
            hit = True
        out.append(res)
    assert hit
    return out


def problems(resources, seeded):
    return [p.problem for p in judge(resources, seeded=seeded).problems]


def release(chart):
    return lambda r: r.type == "kubernetes:helm.sh/v3:Release" and str(r.inputs.get("chart")).endswith(f"/{chart}")


def provisioner(res):
    return res.type == "kubernetes:apps/v1:Deployment" and res.inputs["metadata"]["name"] == "local-path-provisioner"


def test_the_platform_is_ready_as_planned(site, seeded):
    assert problems(site, seeded) == []


def test_a_provisioner_whose_helpers_run_as_a_missing_account_is_not_ready(site, seeded):
    """local-path-provisioner v0.0.37 without --service-account-name: its default account does not exist."""
    def drop_flag(inputs):
        command = inputs["spec"]["template"]["spec"]["containers"][0]["command"]
        i = command.index("--service-account-name")
        del command[i:i + 2]

    found = problems(changed(site, provisioner, drop_flag), seeded)
    assert found == ["the provisioner's helper pods run as ServiceAccount sahab-storage/"
                     "local-path-provisioner-service-account (its --service-account-name), which the stack does not "
                     "create: the API server refuses every helper pod and each volume claim stays Pending"]


def test_the_helper_account_may_come_from_the_environment(site, seeded):
    def by_env(inputs):
        container = inputs["spec"]["template"]["spec"]["containers"][0]
        i = container["command"].index("--service-account-name")
        del container["command"][i:i + 2]
        container["env"].append({"name": "SERVICE_ACCOUNT_NAME", "value": "nobody"})

    assert "ServiceAccount sahab-storage/nobody" in problems(changed(site, provisioner, by_env), seeded)[0]


def test_a_pod_template_with_a_missing_account_is_not_ready(site, seeded):
    def other(inputs):
        inputs["spec"]["template"]["spec"]["serviceAccountName"] = "ghost"

    found = problems(changed(site, provisioner, other), seeded)
    assert any(p.startswith("its pods run as ServiceAccount sahab-storage/ghost, which the stack does not create")
               for p in found)


def test_a_chart_pulling_a_tag_the_seed_list_lacks_is_not_ready(site, seeded):
    def older(inputs):
        inputs["values"]["node-feature-discovery"]["image"]["tag"] = "v0.18.2"

    found = problems(changed(site, release("gpu-operator"), older), seeded)
    assert found == [f"would pull {HOST}/k8s/nfd/node-feature-discovery:v0.18.2 (node-feature-discovery), which "
                     "the stack's seed list lacks (sahab registry list): its pods stay in ImagePullBackOff"]


def test_a_value_the_chart_joins_into_no_reference_is_not_ready(site, seeded):
    """kube-state-metrics 8.4.0 appends `sha` after `@` as given: the bare hex makes no reference."""
    def hex_only(inputs):
        inputs["values"]["kube-state-metrics"]["image"]["sha"] = "ab" * 32

    found = problems(changed(site, release("kube-prometheus-stack"), hex_only), seeded)
    assert len(found) == 1 and "would pull kube-state-metrics as" in found[0] and "not a valid image reference" \
        in found[0]


def test_a_bare_digest_as_the_operators_version_is_not_ready(site, seeded):
    def bare(inputs):
        inputs["values"]["operator"]["version"] = "sha256:" + "cd" * 32

    found = problems(changed(site, release("gpu-operator"), bare), seeded)
    assert found and all("gpu-operator" in p for p in found)


def test_a_chart_default_left_to_the_chart_is_judged_too(site, seeded):
    """Values that leave an image out make the chart pull its own default, from upstream: not seeded."""
    def unset(inputs):
        del inputs["values"]["prometheus-node-exporter"]["image"]

    found = problems(changed(site, release("kube-prometheus-stack"), unset), seeded)
    assert found == ["would pull quay.io/prometheus/node-exporter:v1.12.1-distroless (node-exporter), which the "
                     "stack's seed list lacks (sahab registry list): its pods stay in ImagePullBackOff"]

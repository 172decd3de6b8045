"""Sahab's pins against the chart fact sheets (components/charts/): every pinned chart version has a sheet read from
the chart's source at that version; every image pin is the chart's default or an override that says why and whose
binary, at the pinned tag, takes every flag the chart passes it; every reference is joined by the chart's own rule.

A chart bump without a sheet fails here, saying what to read and where (the sheet of the version before is the
model). To refresh a sheet for a new chart version: fetch the chart's repository at the new tag, read what the
sheet's `file` fields name, write components/charts/<chart>-<version>.yaml, then align components/artifacts.py."""

from __future__ import annotations

import re

import pytest
from sahab.components import chart_facts
from sahab.components.artifacts import CATALOG, Images, autoscaler_image
from sahab.components.aws.cluster_autoscaler import ClusterAutoscalerArgs, chart_values
from sahab.components.chart_facts import MissingFactSheet, sheet
from sahab.components.image_refs import RULES, valid_reference
from sahab.components.kubernetes.storage import HELPER_ACCOUNT
from sahab.components.validation import KUBERNETES_VERSIONS

HOST = "registry.site.example.ae:5000"
CHART_COMPONENTS = sorted(a.component for a in CATALOG.values() if a.kind == "chart")
BINARY_SHEETS = {"storage": ("local-path-provisioner", CATALOG["local-path-provisioner"].version)}


def sheet_of(component: str) -> chart_facts.Sheet:
    if component in BINARY_SHEETS:
        return sheet(*BINARY_SHEETS[component])
    chart = CATALOG[f"{component}-chart"]
    return sheet(chart.chart, chart.version)


def chart_images() -> list[tuple[str, object]]:
    found = [(a.component, a) for a in CATALOG.values() if a.kind == "image" and
             (a.component in CHART_COMPONENTS or a.component in BINARY_SHEETS)]
    return found + [("cluster-autoscaler", autoscaler_image(v)) for v in KUBERNETES_VERSIONS]


def _version(tag: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", tag.split("-")[0]))


@pytest.mark.parametrize("component", CHART_COMPONENTS)
def test_every_pinned_chart_version_has_a_fact_sheet(component):
    facts = sheet_of(component)  # MissingFactSheet says what to read and where
    assert facts.source.get("commit") and facts.source.get("tag"), f"{component}: the sheet names no tag and commit"


def test_a_chart_bump_without_a_sheet_says_what_to_read_and_where():
    with pytest.raises(MissingFactSheet) as info:
        sheet("kube-prometheus-stack", "88.6.0")
    said = str(info.value)
    assert "read the chart's own source at that version in https://github.com/prometheus-community/helm-charts" \
        in said
    assert "values.yaml" in said and "components/charts/kube-prometheus-stack-88.6.0.yaml" in said
    assert "the sheet for 88.5.3 was read at kube-prometheus-stack-88.5.3" in said


@pytest.mark.parametrize(("component", "artifact"), chart_images(), ids=lambda v: getattr(v, "source", v))
def test_each_pin_is_the_charts_default_or_an_override_its_binary_takes(component, artifact):
    facts = sheet_of(component)
    fact = facts.image(artifact.name)
    assert fact is not None, f"{artifact.name}: the {facts.chart} {facts.version} sheet says nothing of it"
    assert artifact.upstream in (fact.repository, *fact.mirrors) and artifact.join == fact.join
    if artifact.version == fact.tag:
        return
    assert artifact.override, f"{artifact.source}: not the chart's default {fact.tag} and no override says why"
    binary = facts.binary(artifact.name)
    at = (binary.get("at") or {}).get(artifact.version)
    if at is None:  # not a binary the chart passes flags to (a helper image): nothing to check against
        assert not binary.get("flags"), f"{artifact.source}: no facts of the binary at {artifact.version}"
        return
    passed = set(binary.get("flags") or ())
    if component == "cluster-autoscaler":  # and the flags Sahab adds through the chart's extraArgs
        args = ClusterAutoscalerArgs(cluster_name="c", region="me-central-1", account_id="111122223333",
                                     oidc_provider_arn="arn", oidc_issuer="https://oidc",
                                     kubernetes_version=artifact.version[1:5])
        passed |= {f"--{key}" for key in chart_values(args, "c", "arn:role")["extraArgs"]}
    missing = sorted(passed - set(at.get("flags") or ()))
    assert not missing, f"{artifact.source} does not take {missing}"


@pytest.mark.parametrize(("component", "artifact"), chart_images(), ids=lambda v: getattr(v, "source", v))
def test_each_chart_run_binary_is_at_least_the_version_its_chart_expects(component, artifact):
    fact = sheet_of(component).image(artifact.name)
    if artifact.override:
        return  # checked against the binary itself above
    assert _version(artifact.version) >= _version(fact.tag), f"{artifact.source} is older than {fact.reference}"


def test_the_issue_31_pins_hold():
    """NFD the subchart's v0.19.0 (its worker's -owner-refs), the validator in the operator's image, a
    mig-manager that reads DEFAULT_CONFIG_FILE, a node-exporter tag that is built distroless."""
    assert _version(CATALOG["node-feature-discovery"].version) >= (0, 19, 0)
    assert "gpu-operator-validator" not in CATALOG
    assert _version(CATALOG["mig-manager"].version) >= (0, 14, 0)
    exporter = CATALOG["node-exporter"].version
    assert exporter.endswith("-distroless") and _version(exporter) >= (1, 11, 0)
    facts = sheet("gpu-operator", CATALOG["gpu-operator-chart"].version)
    assert "DEFAULT_CONFIG_FILE" in facts.binary("mig-manager")["env"]
    assert "-owner-refs" in facts.binary("node-feature-discovery")["flags"]


def test_sahabs_local_path_command_is_one_the_binary_takes():
    from sahab.components.kubernetes.storage import EncryptedStorage, EncryptedStorageArgs

    from tests.components.kubernetes.harness import one, with_provider

    planned = with_provider(lambda o: EncryptedStorage("st", EncryptedStorageArgs(cluster_kind="onprem"), opts=o))
    container = one(planned, "kubernetes:apps/v1:Deployment").inputs["spec"]["template"]["spec"]["containers"][0]
    at = sheet(*BINARY_SHEETS["storage"]).binary("local-path-provisioner")["at"][CATALOG["local-path-provisioner"]
                                                                                   .version]
    flags = [w for w in container["command"] if w.startswith("--")]
    assert set(flags) <= set(at["flags"]) and {e["name"] for e in container["env"]} <= set(at["env"])
    assert container["command"][container["command"].index("--service-account-name") + 1] == HELPER_ACCOUNT


DIGEST = "sha256:" + "ab" * 32


@pytest.mark.parametrize("digest", [None, DIGEST], ids=["no-digest", "digest"])
@pytest.mark.parametrize("name", sorted(n for n, a in CATALOG.items() if a.kind == "image"))
def test_every_join_reads_back_the_reference_it_was_given(name, digest):
    """The values a rule writes make the chart pull exactly the reference, a valid one, digest or not."""
    artifact = CATALOG[name]
    tag = f"{artifact.version}-ubuntu22.04" if artifact.join == "nvidia-driver" else None
    images = Images(host=HOST)
    ref = images.ref(artifact, tag)
    images = Images(host=HOST, digests={ref.name: digest} if digest else {})
    rule = RULES[artifact.join]
    pulled = rule.pulls(images.values(artifact, tag), "ubuntu22.04") if artifact.join == "nvidia-driver" else \
        rule.pulls(images.values(artifact, tag))
    assert valid_reference(pulled), pulled
    assert pulled == str(images.ref(artifact, tag))


def test_the_digest_spellings_of_issue_31():
    digests = {str(Images(host=HOST).ref(n)).partition("@")[0]: DIGEST for n in
               ("gpu-operator", "kube-state-metrics", "prometheus", "node-exporter")}
    images = Images(host=HOST, digests=digests)
    assert images.values("gpu-operator")["version"] == f"v26.7.0@{DIGEST}"  # never a bare digest
    assert images.values("kube-state-metrics")["sha"] == DIGEST  # appended as given: sha256:<hex>
    assert images.values("prometheus")["sha"] == DIGEST.removeprefix("sha256:")  # the template adds sha256:
    exporter = images.values("node-exporter")
    assert exporter == {"registry": HOST, "repository": "quay/prometheus/node-exporter", "tag": "v1.12.1",
                        "distroless": True, "digest": DIGEST}
    assert f"{HOST}/quay/prometheus/node-exporter:v1.12.1-distroless" in digests  # the tag the chart pulls


# Keys Sahab writes for its own readers that the chart does not read, each with why.
NOT_FOR_THE_CHART = {
    # image_refs.render_cilium_operator: the policy pack reads {repository, tag, digest}; the chart joins genericDigest
    ("cilium", "operator.image.digest"),
}
JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", type(None): "null"}


def _leaves(values: dict, prefix: str = ""):
    for key, value in values.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _as_template_string(value) -> str:
    """How a template's toString/join sees a value: booleans as Go prints them."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("digest", [None, DIGEST], ids=["no-digest", "digest"])
@pytest.mark.parametrize("replicas", [1, 2])
def test_every_cilium_value_sahab_sets_is_a_key_the_chart_reads(digest, replicas):
    """Helm ignores a values key the chart does not have: a misspelt or moved key would turn a feature off without a
    word. Each key Sahab sets is one the pinned chart has (the sheet's `keys`, read from its values.yaml and
    values.schema.json), of a type its schema allows and, where the chart lists them, a value it acts on."""
    from sahab.components.kubernetes.cilium import CHART_VERSION, CiliumArgs, helm_values

    images = Images(host=HOST)
    digests = {images.ref(n).name: digest for n in ("cilium", "cilium-operator")} if digest else {}
    values = helm_values(CiliumArgs(api_server="10.20.0.5:6443", operator_replicas=replicas,
                                    images=Images(host=HOST, digests=digests)))
    keys = sheet("cilium", CHART_VERSION).keys
    for path, value in _leaves(values):
        if ("cilium", path) in NOT_FOR_THE_CHART:
            continue
        assert path in keys, f"cilium {CHART_VERSION} has no values key {path}: Helm would ignore it"
        fact = keys[path]
        assert JSON_TYPES[type(value)] in fact["type"], f"{path}: {value!r} is not of {fact['type']}"
        if "accepts" in fact:
            given = value if isinstance(value, list) else [value]
            assert {_as_template_string(v) for v in given} <= set(fact["accepts"]), f"{path}: {value!r}"

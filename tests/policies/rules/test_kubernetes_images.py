"""SAHAB-K8S-012/011: images from allowed registries, pinned by digest. Hostile references, every workload kind,
Helm values, and the docker reference grammar, through the pack's own Policy objects."""

from __future__ import annotations

import json

import pytest
from sahab.policies.core import Context
from sahab.policies.rules.kubernetes_images import (
    ReferenceError_,
    allowed_registries,
    fleet_registry_hosts,
    parse_reference,
)

from tests.plans import stack_command
from tests.policies.policy_harness import UNKNOWN, Res, Stack, run

REGISTRY_RULE = "kubernetes-all-workload-image-registry-allowed"
DIGEST_RULE = "kubernetes-all-workload-image-digest-pinned"
ECR = "123456789012.dkr.ecr.me-central-1.amazonaws.com"
ACR = "sahabprod.azurecr.io"
MIRROR = "registry.auh.example.ae:5000"
DIGEST = "sha256:" + "0f" * 32
FLEET = {"sahab:fleet": {"environment": "prod", "registries": {"eks": ECR, "aks": ACR, "onprem": [MIRROR]}}}
# The trusted policy config of the stack (policies/config/<stack>.json): the registries that encode no region.
TRUSTED = {"allowedRegistries": [ACR, MIRROR]}
K8S = "pulumi:providers:kubernetes"


def workload(type_, pod_spec_path, pod_spec, name="w"):
    props: dict = {"metadata": {"name": name}}
    node = props
    for step in pod_spec_path[:-1]:
        node = node.setdefault(step, {})
    node[pod_spec_path[-1]] = pod_spec
    return Res(type_, props, name=name, provider={}, provider_type=K8S)


def pod(image, kind="containers"):
    return workload("kubernetes:core/v1:Pod", ("spec",), {kind: [{"name": "c", "image": image}]})


def release(values, name="rel"):
    return Res("kubernetes:helm.sh/v3:Release", {"chart": "x", "values": values}, name=name, provider={},
               provider_type=K8S)


def violations(rule, *resources, config=TRUSTED, fleet=FLEET):
    return run(rule, Stack(list(resources), fleet), config)


@pytest.mark.parametrize("image", [
    f"{ECR}/sahab/workload:0.1.0",
    f"{ECR}/sahab/workload@{DIGEST}",
    f"{ECR}/sahab/workload:0.1.0@{DIGEST}",
    f"{ECR.upper()}/sahab/workload:0.1.0",  # DNS names compare case-insensitively
    f"{ACR}/nvidia/gpu-operator:v24.9.0",
    f"{MIRROR}/library/busybox:1.36",
])
def test_images_from_the_fleets_registries_pass(image):
    assert violations(REGISTRY_RULE, pod(image)) == []


@pytest.mark.parametrize("image", [
    "busybox",  # docker.io/library/busybox
    "busybox:1.36",
    "sahab/workload:0.1.0",  # docker.io/sahab/workload
    "docker.io/library/nginx:1.27",
    "index.docker.io/library/nginx",
    "nvcr.io/nvidia/gpu-operator:v24.9.0",
    "registry.k8s.io/pause:3.9",
    "quay.io/prometheus/prometheus:v2.54.0",
    "ghcr.io/owner/image:1",
    f"{ECR}.evil.io/sahab/workload:0.1.0",  # look-alike: the allowed host as a prefix
    "ecr-me-central-1.amazonaws.com/sahab/workload:0.1.0",
    f"evil-{ECR}/sahab/workload:0.1.0",
    f"{ECR}:8443/sahab/workload:0.1.0",  # another port is another registry
    "registry.auh.example.ae/library/busybox:1.36",  # the mirror without its port
    "xn--sahabprd-azurecr-9kb.io/x:1",  # punycode look-alike
    "sahabprod.azurecr.io.evil.io/x:1",
    "sahabpr\u043ed.azurecr.io/x:1",  # Cyrillic o: not a valid ASCII host at all
    f"{ECR}/../etc:1",
    f"{ECR}/Sahab/Workload:1",  # upper-case repository path is invalid
    f"{ECR}/sahab/workload@sha256:abc",  # truncated digest
    "",
])
def test_public_look_alike_and_invalid_images_fail(image):
    found = violations(REGISTRY_RULE, pod(image))
    assert found and found[0][0].startswith("[SAHAB-K8S-012]")


@pytest.mark.parametrize("kind", ["containers", "initContainers", "ephemeralContainers"])
def test_every_container_list_is_checked(kind):
    assert violations(REGISTRY_RULE, pod("docker.io/library/busybox", kind))
    assert violations(REGISTRY_RULE, pod(f"{ECR}/busybox:1", kind)) == []


@pytest.mark.parametrize(("type_", "path"), [
    ("kubernetes:apps/v1:Deployment", ("spec", "template", "spec")),
    ("kubernetes:apps/v1:DaemonSet", ("spec", "template", "spec")),
    ("kubernetes:apps/v1:StatefulSet", ("spec", "template", "spec")),
    ("kubernetes:apps/v1:ReplicaSet", ("spec", "template", "spec")),
    ("kubernetes:batch/v1:Job", ("spec", "template", "spec")),
    ("kubernetes:batch/v1:CronJob", ("spec", "jobTemplate", "spec", "template", "spec")),
])
def test_every_workload_kind_is_checked(type_, path):
    good = {"containers": [{"name": "ok", "image": f"{ACR}/app:1"}]}
    bad = {"containers": [{"name": "ok", "image": f"{ACR}/app:1"}],
           "initContainers": [{"name": "setup", "image": "alpine:3.20"}]}
    assert violations(REGISTRY_RULE, workload(type_, path, good)) == []
    found = violations(REGISTRY_RULE, workload(type_, path, bad))
    assert len(found) == 1 and "initContainers[setup]" in found[0][0] and "docker.io" in found[0][0]


def test_unknown_values_fail_closed():
    assert violations(REGISTRY_RULE, pod(UNKNOWN))
    assert violations(REGISTRY_RULE, workload("kubernetes:apps/v1:Deployment", ("spec", "template", "spec"),
                                              UNKNOWN))
    assert violations(REGISTRY_RULE, release(UNKNOWN))
    assert violations(REGISTRY_RULE, release({"image": {"registry": UNKNOWN, "repository": "x", "tag": "1"}}))
    assert violations(REGISTRY_RULE, release({"global": {"imageRegistry": UNKNOWN}}))


def test_helm_values_images_in_every_shape():
    good = release({
        "prometheus": {"prometheusSpec": {"image": {"registry": ECR, "repository": "prometheus/prometheus",
                                                     "tag": "v2.54.0", "sha": "0f" * 32}}},
        "driver": {"repository": f"{ACR}/nvidia", "image": "driver", "version": "550.54.15"},
        "sidecar": {"image": f"{MIRROR}/kiwigrid/k8s-sidecar:1.27"},
        "extraContainers": [{"name": "x", "image": f"{ECR}/x:1"}],
    })
    assert violations(REGISTRY_RULE, good) == []
    for bad in (
        {"prometheus": {"image": {"registry": "quay.io", "repository": "prometheus/prometheus", "tag": "v2"}}},
        {"prometheus": {"image": {"repository": "prometheus/prometheus", "tag": "v2"}}},  # docker.io
        {"driver": {"repository": "nvcr.io/nvidia", "image": "driver", "version": "550.54.15"}},
        {"sidecar": {"image": "kiwigrid/k8s-sidecar:1.27"}},
        {"extraContainers": [{"name": "x", "image": f"{ECR}.evil.io/x:1"}]},
    ):
        found = violations(REGISTRY_RULE, release(bad))
        assert len(found) == 1, bad


def test_configured_list_is_the_only_source_for_registries_without_a_region_and_supports_prefix_and_wildcard():
    config = {"allowedRegistries": ["*.dkr.ecr.me-central-1.amazonaws.com", f"{ACR}/sahab"]}
    assert violations(REGISTRY_RULE, pod(f"{ECR}/x:1"), config=config) == []
    assert violations(REGISTRY_RULE, pod("999999999999.dkr.ecr.me-central-1.amazonaws.com/x:1"), config=config) == []
    assert violations(REGISTRY_RULE, pod(f"{ACR}/sahab/workload:1"), config=config) == []
    assert violations(REGISTRY_RULE, pod(f"{ACR}/other/workload:1"), config=config)  # outside the prefix
    assert violations(REGISTRY_RULE, pod(f"{ACR}/sahabx/workload:1"), config=config)  # a prefix is a path
    assert violations(REGISTRY_RULE, pod("a.b.dkr.ecr.me-central-1.amazonaws.com/x:1"), config=config)
    assert violations(REGISTRY_RULE, pod("dkr.ecr.me-central-1.amazonaws.com/x:1"), config=config)
    assert violations(REGISTRY_RULE, pod(f"{MIRROR}/x:1"), config=config)  # the fleet names it: not enough
    bad_entry = violations(REGISTRY_RULE, pod(f"{ECR}/x:1"), config={"allowedRegistries": ["not a host"]})
    assert bad_entry and "not a host" in bad_entry[0][0]


def test_an_ecr_host_in_an_allowed_region_needs_no_configuration():
    # A third-party program with its own ECR in me-central-1 and no sahab:fleet at all.
    assert violations(REGISTRY_RULE, pod(f"{ECR}/app:1"), config={}, fleet={}) == []
    assert violations(REGISTRY_RULE, pod("999999999999.dkr.ecr-fips.me-central-1.amazonaws.com/app:1"), config={},
                      fleet={}) == []


def test_an_ecr_host_abroad_stays_refused_whatever_the_stack_says():
    abroad = "111122223333.dkr.ecr.eu-west-1.amazonaws.com"
    stack = {"sahab:fleet": {"residency": {"allowed_regions": ["me-central-1", "eu-west-1"]},
                             "registries": {"eks": {"host": abroad}}}}
    found = violations(REGISTRY_RULE, pod(f"{abroad}/app:1"), config={}, fleet=stack)
    assert found and "eu-west-1" in found[0][0]
    # Only the trusted config's allowedRegions can allow it.
    assert violations(REGISTRY_RULE, pod(f"{abroad}/app:1"), fleet=stack,
                      config={"allowedRegions": ["me-central-1", "eu-west-1"]}) == []


@pytest.mark.parametrize("mirror", ["mirror.gcr.io", "us-docker.pkg.dev", "registry.hub.docker.com",
                                    "europe-west4-docker.pkg.dev", "public.ecr.aws", "gcr.io"])
def test_a_public_registry_is_never_an_in_country_mirror(mirror):
    stack = {"sahab:fleet": {"registries": {"onprem": {"host": mirror}}}}
    found = violations(REGISTRY_RULE, pod(f"{mirror}/library/busybox:1.36"), fleet=stack,
                       config={"allowedRegistries": [mirror]})
    assert any("public registry" in message for message, _ in found)


def test_registries_that_encode_no_region_need_the_trusted_config():
    found = violations(REGISTRY_RULE, pod(f"{ACR}/x:1"), config={})
    assert found and "sahab:fleet.registries names it" in found[0][0]


def test_digest_rule():
    assert violations(DIGEST_RULE, pod(f"{ECR}/x@{DIGEST}")) == []
    assert violations(DIGEST_RULE, pod(f"{ECR}/x:1@{DIGEST}")) == []
    assert violations(DIGEST_RULE, pod(f"{ECR}/x:1"))
    assert violations(DIGEST_RULE, pod(f"{ECR}/x:sha256"))  # a tag that looks like an algorithm
    assert violations(DIGEST_RULE, release({"image": {"registry": ECR, "repository": "x", "tag": "1"}}))
    assert violations(DIGEST_RULE, release({"image": {"registry": ECR, "repository": "x", "digest": DIGEST}})) == []


@pytest.mark.parametrize(("text", "registry", "path", "tag", "digest"), [
    ("ubuntu", "docker.io", "library/ubuntu", None, None),
    ("ubuntu:24.04", "docker.io", "library/ubuntu", "24.04", None),
    ("bitnami/redis", "docker.io", "bitnami/redis", None, None),
    ("localhost/x", "localhost", "x", None, None),
    ("localhost:5000/x/y:z", "localhost:5000", "x/y", "z", None),
    ("Registry.Example.AE/x", "registry.example.ae", "x", None, None),
    ("index.docker.io/x", "docker.io", "library/x", None, None),
    ("[::1]:5000/x:1", "[::1]:5000", "x", "1", None),
    (f"a.io/x@{DIGEST}", "a.io", "x", None, DIGEST),
    (f"a.io/x:1@{DIGEST.upper().replace('SHA256', 'sha256')}", "a.io", "x", "1", DIGEST),
])
def test_reference_grammar(text, registry, path, tag, digest):
    ref = parse_reference(text)
    assert (ref.registry, ref.path, ref.tag, ref.digest) == (registry, path, tag, digest)


@pytest.mark.parametrize("text", [" a.io/x", "a.io/x:", "a.io//x", "a.io/x:t@", "a.io/X", "-a.io/x", "a.io/x@md5:00"])
def test_invalid_references(text):
    with pytest.raises(ReferenceError_):
        parse_reference(text)


def test_the_smb_stack_pulls_every_image_from_its_mirror_and_needs_no_registry_waiver():
    checked = stack_command("check", "smb")  # `sahab check --stack smb --format json`, once per run
    report = json.loads(checked.out)
    assert checked.code == 0
    assert not [w for w in report["waived"] if w["policy"] == REGISTRY_RULE]
    assert not [v for v in report["violations"] if v["policy"] == REGISTRY_RULE]


def test_the_rule_reads_the_host_of_each_registry_in_the_fleet_schema():
    fleet = {"sahab:fleet": {"registries": {
        "eks": {"host": ECR, "upstream_credentials": {"docker.io": "dockerHubPull"}},
        "aks": {"host": "sahabprod.azurecr.io", "location": "uaenorth"},
        "onprem": {"host": "registry.site.example.ae:5000"}}}}
    hosts = fleet_registry_hosts(Context(stack_config=fleet))
    assert sorted(hosts) == sorted([ECR, "sahabprod.azurecr.io", "registry.site.example.ae:5000"])
    # Other strings of the schema (a location, a secret setting's name) are never taken as registries.
    assert not any(h in ("uaenorth", "dockerhubpull") for h in hosts)
    # And none of them is allowed by the stack naming it: only the trusted config's list counts.
    assert allowed_registries(Context(stack_config=fleet)) == ([], [])

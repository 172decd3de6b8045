"""Property-based: a hostile string in any string setting of `sahab:fleet` is either refused, with a ConfigError
naming that setting, or accepted, and then everything rendered from it is valid where it lands: node labels and
taints survive a kubelet flag and the clouds' `key=value:Effect` strings intact, the Ansible inventory carries no
template or control characters, and cloud names fit their grammar."""

import copy
import json
import re
import shlex

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from sahab.components import validation
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import ROOT, FleetConfig, config_path, parse_fleet
from sahab.components.onprem.from_config import pool_args
from sahab.components.onprem.inventory import group_for, hosts_for, pool_host_vars
from sahab.components.onprem.runner import build_inventory
from sahab.components.pool_plan import aks_taints, eks_taints

from tests.fleets import hybrid_fleet


def base_fleet() -> dict:
    """A hybrid fleet with every optional string setting present, so each can be made hostile."""
    data = hybrid_fleet()
    data["sites"][0].update(ssh_user="sahab", ssh_private_key_secret="onpremSshPrivateKey")
    data["clusters"][1].update(kubernetes_version="1.31")
    data["clusters"][2].update(location="uaenorth", public_endpoint=True, public_endpoint_cidrs=["203.0.113.0/24"])
    data["node_pools"][0].update(labels={"team": "vision"}, extra_taints=[{"key": "dedicated", "value": "vision"}])
    data["node_pools"][1].update(instance_type="g5.2xlarge")
    data["monitoring"] = {"retention": "15d"}
    data["workload"] = {"image": "registry.example.ae/sahab/workload:0.1.0", "team": "research",
                        "teams": [{"name": "research"}, {"name": "ml-training"}]}
    data["residency"] = {"allowed_regions": ["me-central-1", "uaenorth", "uaecentral"]}
    return data


LABEL_KEY = "labels-key"  # a pseudo-field: the key (not the value) of node_pools[0].labels

# Every string setting, as its location in base_fleet().
FIELDS = [
    ("name",), ("clouds", "aws", "region"), ("clouds", "azure", "location"), ("residency", "allowed_regions", 0),
    ("sites", 0, "name"), ("sites", 0, "city"), ("sites", 0, "ssh_user"), ("sites", 0, "ssh_private_key_secret"),
    ("sites", 0, "hosts", 0, "name"), ("sites", 0, "hosts", 1, "name"), ("sites", 0, "hosts", 1, "address"),
    ("clusters", 0, "name"), ("clusters", 0, "site"), ("clusters", 0, "control_plane_hosts", 0),
    ("clusters", 1, "name"), ("clusters", 1, "kubernetes_version"), ("clusters", 2, "location"),
    ("clusters", 2, "public_endpoint_cidrs", 0), ("clusters", 1, "stack_reference"),
    ("node_pools", 0, "name"), ("node_pools", 0, "cluster"), ("node_pools", 0, "hosts", 0),
    ("node_pools", 0, "labels", "team"), ("node_pools", 0, LABEL_KEY),
    ("node_pools", 0, "extra_taints", 0, "key"), ("node_pools", 0, "extra_taints", 0, "value"),
    ("node_pools", 1, "name"), ("node_pools", 1, "instance_type"), ("node_pools", 2, "name"),
    ("storage", "buckets", 0, "name"), ("storage", "buckets", 1, "name"), ("monitoring", "retention"),
    ("workload", "image"), ("workload", "team"), ("workload", "teams", 0, "name"),
]

# A setting that names something others refer to may, when renamed to a valid name, be refused where it is
# referred to; one that is part of a derived cloud name may be refused on the other part.
REFERRED_FROM = {
    ("name",): ("clusters[", "storage.buckets["),
    ("sites", 0, "name"): ("clusters[0].site",),
    ("sites", 0, "hosts", 0, "name"): ("clusters[0].control_plane_hosts[0]",),
    ("sites", 0, "hosts", 1, "name"): ("node_pools[0].hosts[0]",),
    ("clusters", 0, "name"): ("node_pools[0].cluster",),
    ("clusters", 1, "name"): ("node_pools[1].cluster",),
    ("workload", "teams", 0, "name"): ("workload.team",),
    ("clouds", "aws", "region"): ("clouds.aws.region", "node_pools[1].accelerator"),
    ("clouds", "azure", "location"): ("clouds.azure.location",),
    ("residency", "allowed_regions", 0): ("clouds.aws.region",),
    ("clusters", 1, "stack_reference"): ("clusters[1].public_endpoint",),
}

NASTY = [
    "x --anonymous-auth=true --authorization-mode=AlwaysAllow", "a\nKUBELET_EXTRA_ARGS=--x", "a\rb", "$(id)", "`id`",
    "; rm -rf /", "x' || 'y", '"', "{{ lookup('pipe', 'id') }}", "{% raw %}", "../../etc/passwd", "0.0.0.0/0",
    "a" * 64, "a" * 300, "\uff53\uff41\uff48\uff41\uff42", "a\x00b", "-rf", " sahab", "sahab ", "KEY=VAL", "a,b=c",
    "1.99", "0d", "true",
    "", "root", "kube-system", "g5.bogus", "m6i.xlarge; rm -rf /", "é", "a:b", "a/b/c", "*", "%s", "\t", "a\u202eb",
    "nvidia.com/gpu", "sahab.io/pool", "xn--bucket", "192.168.0.1", "::", "255.255.255.255", "org/sahab/prod",
]
# Valid-looking strings too, so that accepted fleets are exercised as well as refused ones.
PLAUSIBLE = st.from_regex(r"[a-z][a-z0-9.-]{0,70}", fullmatch=True) | st.sampled_from(
    ["research", "gpu-b", "1.32", "36h", "g5.xlarge", "10.0.0.9", "198.51.100.0/24", "deploy", "me-central-1",
     "example.com/team", "org/sahab/prod", "Dubai Marina"])
HOSTILE = st.sampled_from(NASTY) | st.text(max_size=80) | PLAUSIBLE | st.builds(
    lambda a, b: a + b, PLAUSIBLE, st.sampled_from(NASTY))


def with_value(field: tuple, value: str) -> dict:
    data = base_fleet()
    parent = data
    for part in field[:-1]:
        parent = parent[part]
    if field[-1] == LABEL_KEY:
        parent["labels"] = {value: "x"}
    else:
        parent[field[-1]] = value
    return data


def field_path(field: tuple) -> str:
    return config_path((*field[:-1], "labels") if field[-1] == LABEL_KEY else field)


# ---- the oracles: what is safe where it lands, stated without the schema's own checks ---------------------

SHELL_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")  # needs no quoting in a shell, a flag list or YAML
CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u202a-\u202e]")


def assert_labels_and_taints_render_intact(fleet: FleetConfig) -> None:
    for pool in fleet.node_pools:
        labels = pool.node_labels
        for key, value in labels.items():
            assert SHELL_WORD.fullmatch(key) and len(key.rpartition("/")[2]) <= 63, key
            assert value == "" or (SHELL_WORD.fullmatch(value) and len(value) <= 63), value
        flag = "--node-labels=" + ",".join(f"{k}={v}" for k, v in labels.items())
        assert shlex.split(flag) == [flag]  # one argument: nothing added to the kubelet's command line
        assert dict(item.split("=", 1) for item in flag.removeprefix("--node-labels=").split(",")) == labels
        for rendered in aks_taints(pool):
            assert shlex.split(rendered) == [rendered] and rendered.count(":") == 1
        for taint in eks_taints(pool):
            assert SHELL_WORD.fullmatch(taint["key"]) and (taint["value"] == "" or SHELL_WORD.fullmatch(taint["value"]))


def assert_inventory_is_plain(fleet: FleetConfig) -> None:
    for pool in fleet.node_pools:
        if fleet.cluster(pool.cluster).kind != "onprem":
            continue
        args = pool_args(fleet, pool)
        taints = [t.model_dump() for t in args.taints]
        hosts = hosts_for(args.hosts, group_for(args.accelerator),
                          pool_host_vars(args.pool, args.accelerator, args.labels, taints))
        text = json.dumps(build_inventory(hosts))
        assert "{{" not in text and "{%" not in text, text  # Ansible would template it on the controller
        for host in hosts:
            assert re.fullmatch(r"[a-z_][a-z0-9_-]{0,31}", host.user)


def assert_no_control_characters(fleet: FleetConfig) -> None:
    assert not CONTROL.search(json.dumps(fleet.model_dump(), ensure_ascii=False))


def assert_cloud_names_valid(fleet: FleetConfig) -> None:
    for bucket in fleet.storage.buckets:
        if bucket.cloud == "aws":
            assert validation.s3_bucket_name(f"{fleet.name}-{bucket.name}-bucket-abcdef0") is None
    for team in fleet.workload.teams:
        assert validation.dns1123_label(team.name) is None and validation.team_namespace(team.name) is None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), value=HOSTILE)
def test_a_hostile_string_anywhere_is_refused_naming_the_setting_or_renders_safely(field, value):
    data = with_value(field, value)
    try:
        fleet = parse_fleet(copy.deepcopy(data))
    except ConfigError as err:
        event("refused")
        assert "\n" not in str(err) and "\r" not in str(err)
        where = field_path(field)
        if not err.path.startswith(where):
            # Refused elsewhere only when the value itself is a fine name that others refer to by the old one.
            others = tuple(f"{ROOT}.{p}" for p in REFERRED_FROM.get(field, ()))
            assert others and err.path.startswith(others), (err.path, where)
        return
    event("accepted")
    assert_labels_and_taints_render_intact(fleet)
    assert_inventory_is_plain(fleet)
    assert_no_control_characters(fleet)
    assert_cloud_names_valid(fleet)


@settings(max_examples=150, deadline=None)
@given(labels=st.dictionaries(HOSTILE, HOSTILE, max_size=4),
       taints=st.lists(st.fixed_dictionaries({"key": HOSTILE, "value": HOSTILE}), max_size=3))
def test_any_labels_and_taints_on_a_gpu_pool_are_refused_or_reach_the_kubelet_intact(labels, taints):
    data = base_fleet()
    data["node_pools"][0].update(labels=labels, extra_taints=taints)
    try:
        fleet = parse_fleet(data)
    except ConfigError as err:
        assert err.path.startswith(("sahab:fleet.node_pools[0].labels", "sahab:fleet.node_pools[0].extra_taints"))
        return
    assume(labels or taints)
    assert_labels_and_taints_render_intact(fleet)
    assert_inventory_is_plain(fleet)

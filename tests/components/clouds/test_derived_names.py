"""Cloud names derived from several settings: a fleet at exactly the limits plans, and every name the program
really produces is within the cloud's limit (so the schema's arithmetic matches the components' naming); one
character more is refused naming the setting."""

from pathlib import Path

import pytest
import yaml
from sahab.components import validation
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from sahab.engine import plan
from tests.fleets import ROOT

# Fleet name 28: its me-central-1 flow-logs role is 28+1+12+"-flow-logs-role"+8 = 64, IAM's limit.
# Cluster name 11: "{fleet}-{cluster}-autoscaler-role" + 8 = 64.  Bucket name 19: "{fleet}-{bucket}-bucket" + 8 = 63.
# Pool name 36: "{pool}-" + EKS's 26-character unique id = 63.
FLEET, CLUSTER, BUCKET, POOL = "f" * 28, "c" * 11, "b" * 19, "p" * 36


def at_the_limits() -> dict:
    return {
        "name": FLEET, "environment": "dev",
        "clouds": {"aws": {"region": "me-central-1"}, "azure": {"location": "uaenorth"}},
        "clusters": [{"name": CLUSTER, "kind": "eks"}, {"name": "a" * (54 - 29), "kind": "aks"}],
        "node_pools": [{"name": POOL, "cluster": CLUSTER, "min_size": 1, "max_size": 2},
                       {"name": "cpu", "cluster": "a" * 25}],
        "storage": {"buckets": [{"name": BUCKET, "cloud": "aws"}]},
    }


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    program = tmp_path_factory.mktemp("limits")
    (program / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {Path(ROOT) / 'stacks'}\n")
    (program / "Pulumi.t.yaml").write_text(yaml.safe_dump({"config": {"sahab:fleet": at_the_limits()}}))
    return plan(program, "t")


def _names(planned, type_token: str, key: str) -> list[str]:
    found = [r for r in planned.resources if r.type == type_token]
    assert found, f"no {type_token} planned"
    return [r.outputs.get(key) or r.inputs.get(key) for r in found]


def test_iam_role_names_reach_but_do_not_pass_64(planned):
    lengths = [len(n) for n in _names(planned, "aws:iam/role:Role", "name")]
    assert max(lengths) == validation.IAM_ROLE_MAX


def test_the_bucket_name_reaches_but_does_not_pass_63_and_is_a_valid_s3_name(planned):
    (name,) = _names(planned, "aws:s3/bucket:Bucket", "bucket")
    assert len(name) == validation.S3_BUCKET_MAX
    assert validation.s3_bucket_name(name) is None


def test_the_node_group_prefix_leaves_room_for_eks_unique_id(planned):
    (prefix,) = _names(planned, "aws:eks/nodeGroup:NodeGroup", "nodeGroupNamePrefix")
    assert len(prefix) + validation.EKS_NODEGROUP_PREFIX_SUFFIX == validation.EKS_NODEGROUP_MAX


def test_the_aks_dns_prefix_reaches_but_does_not_pass_54(planned):
    (prefix,) = _names(planned, "azure-native:containerservice:ManagedCluster", "dnsPrefix")
    assert len(prefix) == validation.AKS_DNS_PREFIX_MAX
    assert validation.aks_dns_prefix(prefix) is None


def test_storage_account_names_are_always_valid_whatever_the_names():
    from sahab.components.azure.plan import storage_account_name

    for prefix in ("a", "z" * 80, "0-0", "sahab" + "x" * 40):
        assert validation.azure_storage_account_name(storage_account_name(prefix, "proj", "stack", "")) is None


@pytest.mark.parametrize(("mutate", "path", "what"), [
    (lambda d: d.update(name=FLEET + "f"), "sahab:fleet.name", "IAM role name"),
    (lambda d: (d["clusters"][0].update(name=CLUSTER + "c"), d["node_pools"][0].update(cluster=CLUSTER + "c")),
     "sahab:fleet.clusters[0].name", "IAM role name"),
    (lambda d: d["storage"]["buckets"][0].update(name=BUCKET + "b"), "sahab:fleet.storage.buckets[0].name",
     "S3 bucket name"),
    (lambda d: d["node_pools"][0].update(name=POOL + "p"), "sahab:fleet.node_pools[0].name", "EKS node group name"),
    (lambda d: (d["clusters"][1].update(name="a" * 26), d["node_pools"][1].update(cluster="a" * 26)),
     "sahab:fleet.clusters[1].name", "AKS DNS prefix"),
])
def test_one_character_more_is_refused_naming_the_setting(mutate, path, what):
    data = at_the_limits()
    parse_fleet(data)
    mutate(data)
    with pytest.raises(ConfigError) as info:
        parse_fleet(data)
    assert info.value.path == path
    assert what in info.value.message and "shorten them by 1" in info.value.message


@pytest.mark.parametrize(("names", "says"), [(["system"], "system pool"), (["gpu-a", "gpua"], "pool gpu-a"),
                                             (["cpu", "abcdefghijkl-x", "abcdefghijkl-y"], "abcdefghijkl-x")])
def test_aks_pool_names_that_clash_or_vanish_are_refused_by_the_schema(names, says):
    data = at_the_limits()
    data["node_pools"][1:] = [{"name": n, "cluster": "a" * 25} for n in names]
    with pytest.raises(ConfigError) as info:
        parse_fleet(data)
    assert info.value.path == f"sahab:fleet.node_pools[{len(names)}].name"
    assert says in info.value.message

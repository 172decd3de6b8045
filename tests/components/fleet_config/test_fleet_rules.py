"""The fleet's cross-field rules (components.fleet_config.rules): every problem of a fleet at once, each at its config
path; clusters told apart by kind; and the rules a component used to be the first to refuse, now refused by
parse_fleet and by `sahab plan` on the fleet file (exit 2, one `error:` line), before any resource exists."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from sahab.components.errors import ConfigError, ConfigErrors
from sahab.components.fleet_config import AksCluster, EksCluster, OnpremCluster, parse_fleet

from sahab.cli import main
from tests.fleets import stack_fleet

ROOT = Path(__file__).resolve().parents[3]


def refused(fleet: dict) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_fleet(fleet)
    return caught.value


def paths(err: ConfigError) -> list[str]:
    return [p.path for p in err.problems] if isinstance(err, ConfigErrors) else [err.path]


# ---- every problem, each at its path ---------------------------------------------------------------------------
def test_a_fleet_with_several_mistakes_hears_of_all_of_them_each_at_its_path():
    fleet = stack_fleet("prod")
    fleet["clusters"][2]["location"] = "eu-west-1"                          # outside the residency list
    fleet["node_pools"][5].update(min_size=12)                              # above its max_size of 10
    fleet["node_pools"][1]["hosts"] = ["auh-cpu1", "nowhere"]               # no such host at the site
    fleet["storage"]["buckets"][2]["cloud"] = "aws"                         # geo_redundant on an S3 bucket
    fleet["workload"]["team"] = "nobody"                                    # no such team
    err = refused(fleet)
    assert paths(err) == [
        "sahab:fleet.clusters[2].location",
        "sahab:fleet.node_pools[1].hosts[1]",
        "sahab:fleet.node_pools[5].min_size",
        "sahab:fleet.storage.buckets[2].geo_redundant",
        "sahab:fleet.workload.team",
    ]
    text = str(err)
    assert "\n" not in text and text.startswith("sahab:fleet.clusters[2].location: 'eu-west-1' is outside")
    assert all(f"{path}: " in text for path in paths(err))
    assert text.endswith("(problem 5 of 5)")
    assert (err.path, err.message) == (err.problems[0].path, err.problems[0].message)


def test_a_pool_on_a_refused_cluster_is_not_refused_again_for_it():
    """The pools of a cluster outside the residency list are not also told their region sells nothing."""
    fleet = stack_fleet("prod")
    fleet["clusters"][2]["location"] = "eu-west-1"
    assert paths(refused(fleet)) == ["sahab:fleet.clusters[2].location"]


def test_several_malformed_settings_are_reported_together():
    fleet = stack_fleet("prod")
    fleet["sites"][0]["hosts"][0]["port"] = 0
    fleet["clusters"][2]["site"] = "auh-dc1"
    fleet["node_pools"][0]["colour"] = "blue"
    fleet["monitoring"]["retention"] = "forever"
    assert paths(refused(fleet)) == [
        "sahab:fleet.sites[0].hosts[0].port",
        "sahab:fleet.clusters[2].site",
        "sahab:fleet.node_pools[0].colour",
        "sahab:fleet.monitoring.retention",
    ]


# ---- clusters by kind ------------------------------------------------------------------------------------------
def test_each_kind_of_cluster_is_its_own_model_with_only_its_settings():
    clusters = parse_fleet(stack_fleet("prod")).clusters
    assert [type(c) for c in clusters] == [OnpremCluster, OnpremCluster, EksCluster, AksCluster]
    onprem_only = {"site", "control_plane_hosts", "control_plane_vip", "schedule_on_control_plane"}
    assert not onprem_only & (set(EksCluster.model_fields) | set(AksCluster.model_fields))
    assert onprem_only <= set(OnpremCluster.model_fields)
    assert "location" not in OnpremCluster.model_fields


@pytest.mark.parametrize("index, key, value, owner", [
    (2, "control_plane_hosts", ["auh-cp1"], "onprem"),
    (3, "site", "auh-dc1", "onprem"),
    (0, "public_endpoint", True, "eks and aks"),
])
def test_a_setting_of_another_kind_is_refused_at_its_own_path_naming_its_kind(index, key, value, owner):
    fleet = stack_fleet("prod")
    fleet["clusters"][index][key] = value
    err = refused(fleet)
    kind = fleet["clusters"][index]["kind"]
    assert err.path == f"sahab:fleet.clusters[{index}].{key}"
    assert err.message.startswith(f"unknown key for a cluster of kind {kind} ({key} is a setting of kind {owner}); "
                                  "allowed: name, kind, kubernetes_version")


@pytest.mark.parametrize("cluster, path, message", [
    ({"name": "gke", "kind": "gke"}, "sahab:fleet.clusters[4].kind", "'gke' is not allowed; allowed: eks, aks, onprem"),
    ({"name": "nokind"}, "sahab:fleet.clusters[4].kind", "required but missing"),
])
def test_a_cluster_without_a_known_kind_is_refused_at_its_kind(cluster, path, message):
    fleet = stack_fleet("prod")
    fleet["clusters"].append(cluster)
    err = refused(fleet)
    assert (err.path, err.message) == (path, message)


# ---- rules a component was the first to refuse -----------------------------------------------------------------
def _mixed_drivers(fleet: dict) -> None:  # components.kubernetes.gpu_operator: one operator, one driver owner
    fleet["node_pools"].append({"name": "aks-h100-host", "cluster": "aks-main", "accelerator": "h100",
                                "min_size": 0, "max_size": 2, "gpu_driver": "preinstalled"})


def _replica_in_azure(fleet: dict) -> None:  # components.aws.bucket: the replica is an S3 bucket
    fleet["storage"]["buckets"][0]["replicate_to"] = "uaenorth"


def _replica_unversioned(fleet: dict) -> None:  # components.aws.bucket: S3 replicates versions
    fleet["residency"] = {"allowed_regions": ["me-central-1", "me-south-1", "uaenorth", "uaecentral"]}
    fleet["storage"]["buckets"][0].update(replicate_to="me-south-1", versioning=False)


def _pair_outside(fleet: dict) -> None:  # components.azure.storage_account: GRS copies to uaecentral
    fleet["residency"] = {"allowed_regions": ["me-central-1", "uaenorth"]}


def _no_ceiling(fleet: dict) -> None:  # components.pool_plan.scaling: a node group needs max_size >= 1
    fleet["node_pools"][5].update(min_size=0, max_size=0)


def _acr_elsewhere(fleet: dict) -> None:  # components.registry_build: the ACR needs a landing zone
    fleet["registries"]["aks"]["location"] = "uaecentral"


def _store_without_key(fleet: dict) -> None:  # components.checkpoint_build: the training team's own key
    fleet["sites"][0]["object_store"] = {
        "endpoint": "https://s3.auh.example.ae", "addresses": ["10.10.5.0/28"], "bucket": "sahab-checkpoints",
        "team_credentials": {"ml-training": {"access_key_id_secret": "auhKeyId",
                                             "secret_access_key_secret": "auhKey"}}}


def _vpn_past_the_address_plan(fleet: dict) -> None:  # components.hybrid_plan: tunnel addresses per site index
    fleet["sites"] += [{"name": f"edge-{n}", "emirate": "dubai", "city": "Dubai"} for n in range(98)]
    fleet["sites"].append({"name": "edge-last", "emirate": "dubai", "city": "Dubai", "networks": ["10.99.0.0/24"],
                           "gateway": {"public_ip": "198.51.100.99", "terminates_on": "router"},
                           "links": [{"cloud": "aws"}]})  # index 100: prod has two sites


MOVED = [
    (_mixed_drivers, "sahab:fleet.node_pools[8].gpu_driver",
     "'preinstalled' differs from pool aks-h100's 'operator' on cluster aks-main"),
    (_replica_in_azure, "sahab:fleet.storage.buckets[0].replicate_to", "'uaenorth' is not an AWS Region"),
    (_replica_unversioned, "sahab:fleet.storage.buckets[0].versioning", "replication needs versioning on"),
    (_pair_outside, "sahab:fleet.storage.buckets[2].geo_redundant",
     "geo-redundant storage in uaenorth would replicate to uaecentral, outside the residency list"),
    (_no_ceiling, "sahab:fleet.node_pools[5].max_size", "a cloud pool needs max_size of at least 1"),
    (_acr_elsewhere, "sahab:fleet.registries.aks.location", "'uaecentral' has no landing zone in this stack"),
    (_store_without_key, "sahab:fleet.sites[0].object_store.team_credentials",
     "team research trains on cluster auh-onprem at site auh-dc1 and has no key for its store"),
    (_vpn_past_the_address_plan, "sahab:fleet.sites[100].links[0].type",
     "the tunnel address plan serves the first 100 sites"),
]


@pytest.mark.parametrize("mistake, path, message", MOVED, ids=[m[0].__name__.strip("_") for m in MOVED])
def test_parse_fleet_refuses_what_only_a_component_refused_before(mistake, path, message):
    fleet = stack_fleet("prod")
    mistake(fleet)
    err = refused(fleet)
    assert path in paths(err)
    problem = err.problems[paths(err).index(path)] if isinstance(err, ConfigErrors) else err
    assert message in problem.message


def test_sahab_plan_refuses_each_of_them_in_the_fleet_file_at_exit_2(tmp_path, capsys):
    """One run of the program over a fleet file with every such mistake: one `error:` line naming each path."""
    fleet = stack_fleet("prod")
    for mistake, _, _ in MOVED:
        if mistake not in (_replica_in_azure, _pair_outside):  # their residency would hide the others' cases
            mistake(fleet)
    (tmp_path / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {ROOT / 'stacks'}\n")
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump({"config": {"sahab:fleet": fleet}}))
    capsys.readouterr()
    code = main(["plan", "--program", str(tmp_path), "--stack", "t", "--format", "json", "-q"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("error: sahab:fleet.") and "Traceback" not in err
    for _, path, message in MOVED:
        if path not in ("sahab:fleet.storage.buckets[0].replicate_to", "sahab:fleet.storage.buckets[2].geo_redundant"):
            assert f"{path}: " in line and message in line

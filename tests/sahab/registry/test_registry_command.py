"""`sahab registry list`: every artifact of a stack with its upstream source and in-country target, as text (a
tab-separated seed list) and JSON (with schemaVersion); bad input exits 2 with one `error:` line."""

from __future__ import annotations

import json

import pytest

from sahab.cli import main
from sahab.schema import SCHEMA_VERSION

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["registry", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_lists_every_artifact_of_prod_with_source_target_and_how(capsys):
    code, out, _ = run(capsys, "list", "--stack", "prod", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["schemaVersion"] == SCHEMA_VERSION and doc["stack"] == "prod"
    assert doc["registries"] == {"eks": ECR, "aks": "sahabprod.azurecr.io", "onprem": "registry.sahab.example.ae:5000"}
    by = {(a["clusterKind"], a["source"]): a for a in doc["artifacts"]}
    nvcr = by[("aks", "nvcr.io/nvidia/k8s/dcgm-exporter:4.6.0-4.8.3-distroless")]
    assert nvcr["target"] == "sahabprod.azurecr.io/nvcr/nvidia/k8s/dcgm-exporter:4.6.0-4.8.3-distroless"
    # Where the GPU operator installs the driver it pulls <version>-<node OS> (AKS Ubuntu 22.04 nodes at 1.34).
    driver = by[("aks", "nvcr.io/nvidia/driver:595.91.07-ubuntu22.04")]
    assert driver["target"] == "sahabprod.azurecr.io/nvcr/nvidia/driver:595.91.07-ubuntu22.04"
    assert not [a for a in doc["artifacts"] if a["clusterKind"] == "onprem" and "/driver:" in a["target"]]
    assert nvcr["how"] == "seed" and nvcr["digest"] is None
    chart = by[("onprem", "https://helm.cilium.io/#cilium:1.19.4")]
    assert chart["target"] == "oci://registry.sahab.example.ae:5000/charts/cilium:1.19.4" and chart["kind"] == "chart"
    own = [a for a in doc["artifacts"] if a["how"] == "build"]
    assert {a["clusterKind"] for a in own} == {"eks", "aks", "onprem"}
    assert all(a["target"].endswith("/sahab/workload:0.1.0") for a in own)
    # Every target is in the registry of its cluster kind.
    assert all(a["target"].removeprefix("oci://").startswith(doc["registries"][a["clusterKind"]])
               for a in doc["artifacts"])


def test_text_is_a_tab_separated_seed_list_and_output_writes_it_to_a_file(capsys, tmp_path):
    seed = tmp_path / "seed.tsv"
    code, out, err = run(capsys, "list", "--stack", "smb", "--output", str(seed))
    assert code == 0 and out == "" and "wrote" in err
    rows = [line.split("\t") for line in seed.read_text().splitlines() if not line.startswith("#")]
    assert rows and all(len(r) == 6 for r in rows)
    assert {r[1] for r in rows} == {"onprem"}
    assert ["image", "onprem", "cache", "registry.k8s.io/pause:3.10.1",
            "registry.office.example.ae:5000/k8s/pause:3.10.1", "-"] in rows
    assert not [r for r in rows if "gpu-operator" in r[3]]  # smb is CPU only


def test_the_json_seed_list_file_matches_stdout(capsys, tmp_path):
    target = tmp_path / "seed.json"
    assert run(capsys, "list", "--stack", "dev", "--format", "json", "-o", str(target))[0] == 0
    code, out, _ = run(capsys, "list", "--stack", "dev", "--format", "json")
    assert code == 0 and json.loads(target.read_text()) == json.loads(out)


@pytest.mark.parametrize(("argv", "says"), [
    (["list", "--stack", "nope"], "--stack nope"),
    (["list", "--stack", "../prod"], "not a stack name"),
    (["list", "--format", "xml"], "--format"),
    (["list", "--output", "/nonexistent-dir/seed.tsv"], "--output"),
    # /proc takes no new files even from root, whom permission bits would let through: the check writes for real
    (["list", "--output", "/proc/sahab-seed.tsv"], "--output /proc/sahab-seed.tsv: cannot be written"),
    (["copy"], "invalid choice"),
    (["seed", "--stack", "smb", "--from", "/nonexistent"], "not an OCI image layout"),
    (["pin", "--stack", "smb", "--kind", "eks"], "--kind eks: the stack names no eks registry"),
    (["pin", "--stack", "smb", "--ca-file", "/nonexistent.pem"], "no such file"),
    (["pin", "--stack", "smb", "--password", "x"], "unrecognized arguments"),  # never on the command line
    ([], "ACTION"),
])
def test_bad_input_is_one_error_line_and_exit_2(capsys, argv, says):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error:") and says in err


def test_a_bad_fleet_is_refused_naming_the_field(capsys, tmp_path):
    import shutil

    import yaml

    from tests.fleets import ROOT

    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    doc["config"]["sahab:fleet"]["registries"]["eks"]["host"] = "111122223333.dkr.ecr.eu-west-1.amazonaws.com"
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(yaml.safe_dump(doc))
    code, _, err = run(capsys, "list", "--stack", "dev", "--program", str(tmp_path))
    assert code == 2 and err.startswith("error: sahab:fleet.registries.eks.host:") and "eu-west-1" in err


def test_a_burst_stack_lists_only_the_training_image_for_its_workers_registries(capsys):
    code, out, _ = run(capsys, "list", "--stack", "burst", "--format", "json")
    assert code == 0
    artifacts = json.loads(out)["artifacts"]
    # The platform on the borrowed clusters is prod's; burst Jobs run on the EKS and AKS workers.
    assert sorted((a["clusterKind"], a["how"], a["source"]) for a in artifacts) == [
        ("aks", "build", "workloads/Dockerfile"), ("eks", "build", "workloads/Dockerfile")]


def test_a_fully_pinned_stack_is_told_which_digest_waivers_to_delete(capsys):
    """After `pin` records every artifact, the stack's digest-rule waivers have no reason left: prod's are named."""
    from sahab.policies.waivers import load_waivers

    from sahab.commands.registry import DIGEST_RULE, _waivers_left

    prod = [w for w in load_waivers() if w.policy == DIGEST_RULE and w.resource.startswith("urn:pulumi:prod::")]
    _waivers_left("prod")
    assert f"still waives {DIGEST_RULE} for it ({len(prod)} entries): delete them" in capsys.readouterr().err
    _waivers_left("smb")  # smb waives nothing
    assert capsys.readouterr().err == ""

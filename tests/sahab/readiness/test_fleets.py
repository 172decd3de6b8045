"""Fleets written as stack config, planned by the offline engine through Sahab's own program, judged as
`sahab plan` judges them: ready ones place every training Job, broken ones name the pool, object and why."""

from __future__ import annotations

import contextlib
import copy
import io
import json

import pytest
import yaml

from sahab.cli import main
from sahab.engine import plan
from sahab.readiness import judge
from tests.fleets import ROOT
from tests.sahab.readiness.builders import asking

# Its programs fork from warm hosts (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("warm_program_hosts")

CLOUDS = {"aws": {"region": "me-central-1", "az_count": 2}, "azure": {"location": "uaenorth"}}


def _fleet(pools: list[dict], clusters=({"name": "eks", "kind": "eks"},), **extra) -> dict:
    return {"name": "rd", "environment": "dev", "clouds": CLOUDS, "clusters": list(clusters), "node_pools": pools,
            "monitoring": {"storage_size_gb": 10}, "workload": {"enabled": True}, **extra}


def _program(tmp_path, fleet: dict):
    (tmp_path / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {ROOT / 'stacks'}\n")
    stack = {"config": {"aws:region": "me-central-1", "azure-native:location": "uaenorth", "sahab:fleet": fleet}}
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    return tmp_path


def _planned(tmp_path, fleet: dict):
    return plan(_program(tmp_path, fleet), "t").resources


def _verdict(tmp_path, fleet: dict):
    return judge(_planned(tmp_path, fleet))


def test_a_cloud_fleet_that_fits_is_ready_and_places_each_training_job(tmp_path):
    fleet = _fleet([
        {"name": "cpu", "cluster": "eks", "instance_type": "m6i.2xlarge", "min_size": 2, "max_size": 4},
        {"name": "l40s", "cluster": "eks", "accelerator": "l40s", "instance_type": "g6e.12xlarge"},
        {"name": "aks-cpu", "cluster": "aks", "min_size": 1, "max_size": 3},
    ], clusters=({"name": "eks", "kind": "eks"}, {"name": "aks", "kind": "aks"}))
    result = _verdict(tmp_path, fleet)
    assert result.ok, result.problems
    placed = {(p.workload, p.cluster, p.pool, p.nodes) for p in result.placements}
    assert placed == {("Job ml-training/train-cpu", "rd-eks", "cpu", 2),
                      ("Job ml-training/train-l40s", "rd-eks", "l40s", 1),
                      ("Job ml-training/train-aks-cpu", "rd-aks", "aks-cpu", 1)}


@pytest.fixture(scope="module")
def too_small(tmp_path_factory):
    """A fleet whose one pool is too small for its training pods: its program, and the exit code and JSON of
    `sahab plan --format json` (one run for the tests that judge it)."""
    program = _program(tmp_path_factory.mktemp("too-small"),
                       _fleet([{"name": "tiny", "cluster": "eks", "instance_type": "m6i.large"}]))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["plan", "--program", str(program), "--stack", "t", "--format", "json"])
    return program, code, json.loads(out.getvalue())


def test_a_pool_too_small_for_its_training_pods_is_named_with_the_figures(too_small):
    _, _, doc = too_small
    [problem] = doc["readiness"]["problems"]
    assert (problem["cluster"], problem["object"]) == ("rd-eks", "Job ml-training/train-tiny")
    # m6i.large: 2 vCPUs less 70m, 8 GiB less 574 MiB (11 x 29 pods + 255) and 100 MiB for eviction.
    assert "pool tiny: asks 4 CPU, a node has 1.93 CPU allocatable; asks 16.0 GiB, a node has 7.3 GiB" \
        in problem["problem"]


def test_time_slicing_with_whole_gpu_requests_is_refused_on_a_cloud_pool_too(tmp_path):
    fleet = _fleet([{"name": "cpu", "cluster": "eks", "instance_type": "m6i.2xlarge"},
                    {"name": "l40s", "cluster": "eks", "accelerator": "l40s", "instance_type": "g6e.12xlarge",
                     "time_slicing_replicas": 4}])
    planned = _planned(tmp_path, fleet)
    # The fleet gives a time-sliced pool's training Job one slice per worker (more is refused), so it is ready...
    assert judge(planned).ok
    # ...and the same Job asking for the node's 4 whole GPUs, as a user's own Job may, is refused by the plugin.
    [problem] = judge(asking(planned, "Job ml-training/train-l40s", "nvidia.com/gpu", 4)).problems
    assert problem.object == "Job ml-training/train-l40s"
    assert "asks 4 nvidia.com/gpu, but each GPU is time-sliced 4 ways with failRequestsGreaterThanOne" \
        in problem.problem


def test_mig_mixed_leaves_no_whole_gpus_for_the_training_job(tmp_path):
    fleet = _fleet([{"name": "aks-cpu", "cluster": "aks"},
                    {"name": "h100", "cluster": "aks", "accelerator": "h100", "mig_strategy": "mixed"}],
                   clusters=({"name": "aks", "kind": "aks"},))
    # The layout is the nodes' `nvidia.com/mig.config` label, which the schema keeps out of a pool's `labels`:
    # the planned agent pool's nodes carry it here.
    planned = []
    for res in _planned(tmp_path, fleet):
        if res.type == "azure-native:containerservice:AgentPool" and \
                (res.inputs.get("nodeLabels") or {}).get("sahab.io/pool") == "h100":
            res = copy.deepcopy(res)
            res.inputs["nodeLabels"]["nvidia.com/mig.config"] = "all-1g.12gb"
        planned.append(res)
    problems = {p.object: p.problem for p in judge(planned).problems}
    # (and, as no validator runs there, none of its nodes is labelled passed)
    assert "pool h100: required node affinity does not match its node labels; asks 1 nvidia.com/gpu, a node has " \
        "0 nvidia.com/gpu allocatable" in problems["Job ml-training/train-h100"]
    # The pool's node validator asks for what a training pod asks for: it cannot run either, so it says so.
    assert problems["DaemonSet sahab-system/validate-h100"] == (
        "cannot run on pool h100 (asks 1 nvidia.com/gpu, a node has 0 nvidia.com/gpu allocatable), so its nodes "
        "never get sahab.io/validation=passed")
    assert len(problems) == 2


def test_an_eks_pool_scaling_from_zero_needs_an_autoscaler(tmp_path):
    fleet = _fleet([{"name": "cpu", "cluster": "eks", "instance_type": "m6i.2xlarge"},
                    {"name": "burst", "cluster": "eks", "accelerator": "a10g", "min_size": 0, "max_size": 4}])
    planned = _planned(tmp_path, fleet)
    # The fleet runs cluster-autoscaler on every EKS cluster it creates: the pool gets its nodes...
    assert judge(planned).ok
    # ...and the same fleet without that Helm release has a pool that never gets one.
    problems = judge([r for r in planned if not (r.type == "kubernetes:helm.sh/v3:Release" and
                                                 r.inputs.get("name") == "cluster-autoscaler")]).problems
    assert [(p.object, p.problem.split(":")[0]) for p in problems] == [
        ("node group burst", "scales from zero but no autoscaler runs on the cluster (no cluster-autoscaler or "
                             "karpenter Helm release)")]


def test_sahab_plan_exits_1_and_names_the_problems(too_small, capsys):
    program, code, doc = too_small
    assert code == 1
    assert doc["schemaVersion"] >= 2
    assert doc["readiness"]["ok"] is False
    assert doc["readiness"]["problems"][0]["object"] == "Job ml-training/train-tiny"
    assert main(["plan", "--program", str(program), "--stack", "t"]) == 1
    text = capsys.readouterr().out
    assert "Readiness: not ready" in text and "Job ml-training/train-tiny" in text


@pytest.mark.parametrize("program", ["raw_azure_k8s"])
def test_a_program_whose_plan_shows_no_nodes_is_not_judged(program, capsys):
    """Kubernetes objects on a cluster the plan does not build: nothing to judge, never a false "not ready"."""
    folder = ROOT / "tests" / "policies" / "programs" / program
    assert main(["plan", "--program", str(folder), "--stack", "dev", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["readiness"] == {"ok": True, "problems": [], "placements": [],
                                                                "pools": []}


def test_pools_of_the_odd_and_bare_metal_sizes_are_judged_on_their_shape(tmp_path):
    """c5's 9xlarge and 18xlarge and the .metal sizes are sold in me-central-1: their nodes have a shape (EC2's), so
    the training Jobs on them are placed, not left "not in the hardware catalog"."""
    fleet = _fleet([
        {"name": "c5", "cluster": "eks", "instance_type": "c5.9xlarge", "min_size": 1, "max_size": 2},
        {"name": "metal", "cluster": "eks", "instance_type": "m7i.metal-48xl", "min_size": 1, "max_size": 2},
        {"name": "r5", "cluster": "eks", "instance_type": "r5.metal", "min_size": 1, "max_size": 2},
    ])
    result = _verdict(tmp_path, fleet)
    assert result.ok, result.problems
    assert {(p.pool, p.nodes) for p in result.placements} == {("c5", 1), ("metal", 1), ("r5", 1)}

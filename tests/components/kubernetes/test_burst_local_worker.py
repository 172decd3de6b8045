"""A burst worker this stack builds itself (no stack_reference): its pools train only through the burst queue, into
this stack's own checkpoint store, judged by its own platform's validator."""

import pytest
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from tests.components.network.fleets import planned
from tests.fleets import ROOT, stack_fleet

CHECKPOINTS = {"name": "ckpt", "cloud": "aws", "purpose": "checkpoints"}


def _local_worker(*, buckets: list[dict]) -> dict:
    """The burst stack, with eks-main built here instead of borrowed from prod, and one of its pools kept warm."""
    fleet = stack_fleet("burst")
    eks = next(c for c in fleet["clusters"] if c["name"] == "eks-main")
    del eks["stack_reference"]
    next(p for p in fleet["node_pools"] if p["cluster"] == "eks-main")["min_size"] = 2
    fleet["storage"] = {"buckets": buckets}
    return fleet


def test_a_local_worker_without_a_checkpoint_store_of_its_cloud_is_refused():
    worker = stack_fleet("burst")["burst"]["workers"].index("eks-main")
    azure_only = [{**CHECKPOINTS, "cloud": "azure"}, {**CHECKPOINTS, "name": "data", "purpose": "datasets"}]
    with pytest.raises(ConfigError, match=rf"burst\.workers\[{worker}\]: 'eks-main' is built by this stack, which "
                                          r"keeps no `checkpoints` bucket on aws: a burst run would lose"):
        parse_fleet(_local_worker(buckets=azure_only))
    assert parse_fleet(_local_worker(buckets=[CHECKPOINTS])).burst.workers[worker] == "eks-main"
    without_training = _local_worker(buckets=[])
    without_training["workload"]["enabled"] = False
    assert parse_fleet(without_training).burst is not None


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    directory = tmp_path_factory.mktemp("burst")
    # Beside the prod stack the burst stack's other clusters come from.
    (directory / "Pulumi.prod.yaml").write_text((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    return planned(directory, _local_worker(buckets=[CHECKPOINTS]))


def test_each_worker_pool_gets_one_job_dispatched_from_the_manager(plan):
    fleet = stack_fleet("burst")
    jobs = [r for r in plan.resources if r.type == "kubernetes:batch/v1:Job" and r.name.endswith("-training-job")]
    assert sorted(j.inputs["metadata"]["name"] for j in jobs) == sorted(f"train-{p['name']}"
                                                                         for p in fleet["node_pools"])
    manager = f"{fleet['name']}-{fleet['burst']['manager']}-k8s"
    for job in jobs:
        assert job.provider.endswith(f"::{manager}"), job.name
        assert job.inputs["spec"]["managedBy"] == "kueue.x-k8s.io/multikueue"


def test_the_local_workers_jobs_checkpoint_into_this_stacks_bucket_with_its_own_identity(plan):
    fleet = stack_fleet("burst")
    local = {p["name"] for p in fleet["node_pools"] if p["cluster"] == "eks-main"}
    access = [r for r in plan.resources if r.type == "sahab:aws:CheckpointAccess"]
    assert [a.name for a in access] == [f"{fleet['name']}-eks-main-{fleet['workload']['teams'][0]['name']}-checkpoints"]
    for job in (r for r in plan.resources if r.type == "kubernetes:batch/v1:Job"
                and r.inputs["metadata"]["name"].removeprefix("train-") in local):
        pod = job.inputs["spec"]["template"]["spec"]
        env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
        assert env["SAHAB_CHECKPOINT_DIR"].startswith(f"s3://{fleet['name']}-ckpt-bucket"), env
        assert pod["serviceAccountName"] == "checkpoint-writer"


def test_the_local_worker_is_judged_by_one_validator_its_platforms(plan):
    validators = sorted(r.name for r in plan.resources if r.type == "sahab:kubernetes:NodeValidator")
    fleet = stack_fleet("burst")["name"]
    assert [v for v in validators if "eks-main" in v] == [f"{fleet}-eks-main-platform-node-validator"]

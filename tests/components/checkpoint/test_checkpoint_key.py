"""The checkpoint signing key reaches the training container and nothing else: a Pulumi secret in a Secret of the
team's namespace on each cluster with a checkpoint store, read by the `train` container only (not the node
validation that runs before it), and by burst Jobs on those clusters by the Secret's name, never exported."""

from __future__ import annotations

import json

import pytest

from tests.plans import stack_plan

JOB = "kubernetes:batch/v1:Job"
KEY_REF = {"secretKeyRef": {"name": "checkpoint-signing-key", "key": "key"}}


@pytest.fixture(scope="module")
def prod():
    return stack_plan("prod")


def _containers(job) -> tuple[dict, list[dict]]:
    spec = job.inputs["spec"]["template"]["spec"]
    (train,) = spec["containers"]
    return train, spec.get("initContainers", [])


def _env(container: dict) -> dict:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def test_every_job_that_checkpoints_to_a_store_gets_its_teams_key_in_the_train_container_only(prod):
    jobs = [r for r in prod.resources if r.type == JOB]
    remote = [j for j in jobs if "://" in str(_env(_containers(j)[0])["SAHAB_CHECKPOINT_DIR"])]
    assert {j.inputs["metadata"]["name"] for j in remote} >= {"train-aks-h100", "train-eks-l40s"}
    secrets = {(r.provider, r.inputs["metadata"]["namespace"]): r for r in prod.resources
               if r.type == "kubernetes:core/v1:Secret" and r.inputs["metadata"]["name"] == "checkpoint-signing-key"}
    for job in remote:
        train, init = _containers(job)
        assert _env(train)["SAHAB_CHECKPOINT_KEY"] == KEY_REF
        assert all("SAHAB_CHECKPOINT_KEY" not in _env(c) for c in init)  # the validator never holds it
        secret = secrets[(job.provider, job.inputs["metadata"]["namespace"])]
        assert secret.inputs["stringData"] == "[secret]"
        assert secret.inputs["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "sahab"}
    keys = [r for r in prod.resources if r.type == "random:index/randomPassword:RandomPassword"
            and r.name.endswith("-signing-key")]
    assert len(keys) == len(secrets) >= 2 and all(k.inputs["length"] >= 64 for k in keys)


def test_the_key_never_leaves_its_cluster_in_a_stack_output(prod):
    outputs = json.dumps([prod.outputs, prod.secret_outputs], default=str)
    assert "clusters" in outputs and "checkpoints" in outputs  # the export burst stacks read is there
    assert "SAHAB_CHECKPOINT_KEY" not in outputs and "checkpoint-signing-key" not in outputs


def test_burst_jobs_read_the_owning_stacks_key_by_name():
    burst = stack_plan("burst")
    jobs = [r for r in burst.resources if r.type == JOB]
    assert jobs
    for job in jobs:
        train, init = _containers(job)
        assert _env(train)["SAHAB_CHECKPOINT_KEY"] == KEY_REF
        assert all("SAHAB_CHECKPOINT_KEY" not in _env(c) for c in init)
    assert not [r for r in burst.resources if r.type == "kubernetes:core/v1:Secret"
                and r.inputs["metadata"]["name"] == "checkpoint-signing-key"]  # the owning stack made it

"""A training Job survives its fleet failing, on loopback: two and three pods, each the image's entrypoint with the
Job's environment (tests/workloads/fleet.py), over gloo on the CPU.

Every scenario ends with every step trained, resumed from the last checkpoint, each pod's exit code one the
Job's podFailurePolicy and successPolicy expect (no retry counted against a pod that did nothing wrong), and
within a bound below every rendezvous timeout: no run waits one out.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from sahab.components.kubernetes.training_job import RENDEZVOUS_LOST, TRAIN_CONTAINER

from tests.workloads.fleet import AGENT_CONFIGURED, NODE_WAITING, SCALED_TIMEOUTS, Fleet

pytestmark = [pytest.mark.torchrun, pytest.mark.slow]

STEPS, EVERY = 40, 5
# Below every timeout a pod could wait out (the scaled read and join timeouts, torch's 300 s exit barrier, the
# process group's 600 s; one and a half of it too, for the scenario that runs twice): a run that needs this long
# waited for one.
BOUND_S = min(int(SCALED_TIMEOUTS["SAHAB_RDZV_READ_TIMEOUT"]), int(SCALED_TIMEOUTS["SAHAB_RDZV_JOIN_TIMEOUT"]))


def outcome(policy: dict, exit_code: int) -> str:
    """What the Job does with a train container that exits `exit_code`: its podFailurePolicy's first match."""
    if exit_code == 0:
        return "succeeded"
    for rule in policy["rules"]:
        codes = rule.get("onExitCodes")
        if codes and codes["containerName"] == TRAIN_CONTAINER and exit_code in codes["values"]:
            return {"Ignore": "retried, not counted", "FailIndex": "index failed"}[rule["action"]]
    return "retried, counted"


def finished(fleet: Fleet, started: float, extra_time: float = 0.0) -> dict[int, int]:
    codes = fleet.wait_all(timeout=BOUND_S + extra_time - (time.monotonic() - started))
    summaries = [s for pods in fleet.pods.values() for s in pods[-1].events("summary")]
    assert len(summaries) == 1, "\n\n".join(p.tail() for pods in fleet.pods.values() for p in pods)
    assert summaries[0]["steps"] == fleet.steps
    assert fleet.complete_steps()[-1] == fleet.steps
    return codes


@pytest.fixture
def fleet_of(tmp_path):
    fleets = []

    def make(nodes: int, steps: int = STEPS) -> Fleet:
        fleets.append(Fleet(tmp_path / f"fleet-{len(fleets)}", nodes, steps, EVERY))
        return fleets[-1]

    yield make
    for fleet in fleets:
        fleet.kill_all()


def test_a_worker_that_dies_before_joining_costs_one_restart_of_its_own_node(fleet_of):
    """The failed start of issue 38: node 1's first worker exits before it joins (CUDA init, OOM building the
    model). Its agent restarts it into a new rendezvous round with a fresh store; node 0 sees a node waiting and
    follows. No key scheme of restart counts, no wait on a key the other node never writes."""
    fleet = fleet_of(2)
    started = time.monotonic()
    fleet.start(0)
    fleet.start(1, SAHAB_TEST_FAIL_BEFORE_JOIN="1")
    codes = finished(fleet, started)
    assert codes == {0: 0, 1: 0}
    assert "exitcode: 1" in fleet.latest(1).log.read_text()  # the injected failure did happen


def test_a_worker_killed_mid_run_resumes_the_three_nodes_from_the_last_checkpoint(fleet_of):
    fleet = fleet_of(3)
    started = time.monotonic()
    for index in range(3):
        fleet.start(index)
    fleet.wait_for_checkpoint(EVERY)
    (victim, *_) = fleet.latest(2).workers()
    os.kill(victim, signal.SIGKILL)
    codes = finished(fleet, started)
    assert codes == {0: 0, 1: 0, 2: 0}
    starts = [e for pods in fleet.pods.values() for e in pods[-1].events("start")]
    assert max(e["resumed_from"] for e in starts) >= EVERY  # resumed, not started over


def test_a_pod_killed_and_replaced_rejoins_and_every_pod_succeeds(fleet_of):
    """Node 1 is lost (every process of its pod killed) and the Job starts a fresh pod for index 1: it joins the
    running group, which resumes from the last checkpoint; nobody waits at the exit barrier, nobody fails."""
    fleet = fleet_of(2)
    started = time.monotonic()
    fleet.start(0)
    fleet.start(1)
    fleet.wait_for_checkpoint(EVERY)
    fleet.latest(1).kill()
    fleet.start(1)
    codes = finished(fleet, started)
    assert codes == {0: 0, 1: 0}
    resumed = [e["resumed_from"] for e in fleet.latest(1).events("start")] + \
              [e["resumed_from"] for e in fleet.latest(0).events("start")]
    assert max(resumed) >= EVERY


def test_losing_pod_0_ends_the_others_with_an_uncounted_retry_and_the_replacements_resume(fleet_of, prod_job):
    """Pod 0 hosts the rendezvous store. When it goes, the other agents lose the store and exit 75; the Job
    retries them without counting (its podFailurePolicy), and with index 0's replacement they resume."""
    fleet = fleet_of(3)
    started = time.monotonic()
    for index in range(3):
        fleet.start(index)
    fleet.wait_for_checkpoint(EVERY)
    fleet.latest(0).kill()
    lost = {i: fleet.latest(i).wait(BOUND_S) for i in (1, 2)}
    policy = prod_job["podFailurePolicy"]
    assert {i: outcome(policy, code) for i, code in lost.items()} == {1: "retried, not counted",
                                                                      2: "retried, not counted"}
    assert lost == {1: RENDEZVOUS_LOST, 2: RENDEZVOUS_LOST}
    for index in (1, 2, 0):  # the Job recreates them; index 0 need not come first
        fleet.start(index)
    codes = finished(fleet, started, extra_time=BOUND_S / 2)
    assert codes == {0: 0, 1: 0, 2: 0}
    starts = [e for pods in fleet.pods.values() for e in pods[-1].events("start")]
    assert starts and starts[0]["resumed_from"] >= EVERY


def test_agents_starting_minutes_apart_wait_for_the_store_and_for_each_other(fleet_of):
    """Scaled down: node 1 starts first and waits for pod 0's store (read_timeout) instead of giving up; node 2
    comes after the group at its minimum size has started, and joins it (a membership change, no retry)."""
    fleet = fleet_of(3)
    # A short last call: nodes 0 and 1 start training as the group at its minimum size, without node 2.
    last_call = {"SAHAB_RDZV_LAST_CALL_TIMEOUT": "5"}
    started = time.monotonic()
    fleet.start(1, **last_call)
    fleet.wait_for_log(1, AGENT_CONFIGURED)  # from here its agent waits for pod 0's store
    time.sleep(4)  # pod 0 comes late: a node that gave up on the store within seconds fails here
    fleet.start(0, **last_call)
    fleet.wait_for_checkpoint(EVERY)
    # The group is frozen mid-run until its agents have seen node 2 waiting, however slowly node 2 starts: a run
    # that ended first would never see the membership change (and a restart would resume at the end).
    group = [fleet.latest(0), fleet.latest(1)]
    for pod in group:
        pod.signal_workers(signal.SIGSTOP)
    fleet.start(2, **last_call)
    fleet.wait_for_log(0, NODE_WAITING)
    for pod in group:
        pod.signal_workers(signal.SIGCONT)
    codes = finished(fleet, started)
    assert codes == {0: 0, 1: 0, 2: 0}
    worlds = {e["world_size"] for pods in fleet.pods.values() for e in pods[-1].events("start")}
    assert 3 in worlds


@pytest.fixture(scope="module")
def prod_job():
    from sahab.components.fleet_config import NodePool, Team, Workload
    from sahab.components.kubernetes.training_job import TrainingJob, TrainingJobArgs

    pool = NodePool(name="loopback", cluster="c", accelerator="cpu", min_size=3, max_size=3)
    args = TrainingJobArgs(pool=pool, team=Team(name="research"), checkpoint_uri="s3://bucket/prefix",
                           queue="research", workload=Workload())
    return TrainingJob._job_spec(args, "train-loopback", "train-loopback-rdzv", {})


def test_the_job_counts_a_failure_of_the_training_itself():
    """The policy is narrow: a worker failure past torchrun's restarts (exit 1) still counts."""
    from sahab.components.fleet_config import NodePool, Team, Workload
    from sahab.components.kubernetes.training_job import TrainingJob, TrainingJobArgs

    pool = NodePool(name="loopback", cluster="c", accelerator="cpu", min_size=2, max_size=2)
    args = TrainingJobArgs(pool=pool, team=Team(name="research"), checkpoint_uri="s3://bucket/prefix",
                           queue="research", workload=Workload())
    policy = TrainingJob._job_spec(args, "j", "s", {})["podFailurePolicy"]
    assert outcome(policy, 1) == "retried, counted"
    assert outcome(policy, RENDEZVOUS_LOST) == "retried, not counted"

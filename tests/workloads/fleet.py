"""A training Job's pods on loopback: each pod is the image's entrypoint (workloads/entrypoint.sh) started with
the environment and command components/kubernetes/training_job.py gives the Job's train container, with only
what a loopback fleet must change: pod 0's DNS name becomes 127.0.0.1, the checkpoint store a shared folder
(every pod sees the same store, as with the Job's object store), the rendezvous timeouts scaled down, and no
fabric check (loopback is no fabric: tests/workloads/test_fabric_floor.py judges the check).

A pod is killed the way a lost node kills it: SIGKILL to every process in it, the agent and its workers
(torchrun starts its workers in sessions of their own, so the pod's process tree is walked, as the container's
cgroup would be).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from sahab.components.fleet_config import NodePool, Team, Workload
from sahab.components.kubernetes.training_job import TrainingJob, TrainingJobArgs
from sahab.workloads.train.checkpoint import available_steps

from tests.workloads.workload_helpers import ROOT
from tools.ports import free_port

JOB = "train-loopback"
SERVICE = f"{JOB}-rdzv"
# Seconds, scaled down from the Job's minutes; each one still has room for a slow, shared CI machine (the read and
# join timeouts, which bound a scenario's run, for two busy workers on 2 cores). The last call
# stays the Job's (and torch's default) 30 s: pods started together under load can be seconds apart, and a group of
# them at its minimum size would start without the last one (a world the test did not set up); once every node
# is in, the round completes at once (max_nodes), so a scenario waits no last call out.
SCALED_TIMEOUTS = {"SAHAB_RDZV_LAST_CALL_TIMEOUT": "30", "SAHAB_RDZV_KEEP_ALIVE": "1",
                   "SAHAB_RDZV_CLOSE_TIMEOUT": "5", "SAHAB_RDZV_READ_TIMEOUT": "180", "SAHAB_RDZV_JOIN_TIMEOUT": "210"}
# One intra-op thread a pod: the pods share this machine's cores as nodes would not, and each one taking every core
# (the worker's default) leaves OpenMP threads spinning on cores the other pods hold (a step ~20x slower).
TINY_MODEL = ["--d-model", "32", "--n-layers", "1", "--n-heads", "2", "--seq-len", "16", "--batch-size", "4",
              "--log-every", "5", "--threads", "1"]
# What torchrun's agent logs (LOGLEVEL=INFO) just before it makes its rendezvous handler, whose first step is
# connecting to the store (torch/distributed/launcher/api.py `launch_agent`).
AGENT_CONFIGURED = "Starting elastic_operator with launch configs"
# What a running group's agent logs when its monitor loop finds a node in the rendezvous's wait list, just before
# it stops its workers for a new round (torch/distributed/elastic/agent/server/api.py `_invoke_run`).
NODE_WAITING = "new nodes from group_rank="
# A test-only `sitecustomize` on the workers' path: a worker of a pod with SAHAB_TEST_FAIL_BEFORE_JOIN=1 exits
# before it joins the process group, on its first start only (as a CUDA init error or an OOM building the model).
FAULTS = Path(__file__).resolve().parent / "faults"
# Lines of a pod's log a timed-out run shows: enough for the stacks of an agent and its worker (Pod.print_stacks).
STUCK_LINES = 120


def job_container(nodes: int, steps: int, checkpoint_every: int) -> dict:
    """The train container of the Job Sahab plans for a CPU pool of `nodes` nodes."""
    pool = NodePool(name="loopback", cluster="c", accelerator="cpu", min_size=nodes, max_size=nodes)
    args = TrainingJobArgs(pool=pool, team=Team(name="research"), checkpoint_uri="s3://bucket/prefix",
                           queue="research",
                           workload=Workload(steps=steps, checkpoint_every=checkpoint_every))
    spec = TrainingJob._job_spec(args, JOB, SERVICE, {})
    return spec["template"]["spec"]["containers"][0]


@dataclass
class Fleet:
    """The pods of one Job on loopback."""

    tmp: Path
    nodes: int
    steps: int
    checkpoint_every: int
    port: int = field(default_factory=free_port)
    pods: dict[int, list[Pod]] = field(default_factory=dict)  # index -> its pods, newest last

    def __post_init__(self) -> None:
        self.container = job_container(self.nodes, self.steps, self.checkpoint_every)
        self.checkpoints = self.tmp / "store"
        self.checkpoints.mkdir(parents=True)

    def env(self, index: int, extra: dict | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SAHAB_", "TORCHELASTIC_"))}
        env.update({e["name"]: e["value"] for e in self.container["env"]})
        # Each group start would all-reduce for 5 s (workloads/bench/fabric.py) and judge loopback, under whatever
        # load the machine has, against Ethernet's floor: not what a recovery scenario is about.
        del env["SAHAB_FABRIC"]
        env.update({
            "JOB_COMPLETION_INDEX": str(index),
            "SAHAB_RDZV_ENDPOINT": f"127.0.0.1:{self.port}",  # `<job>-0.<service>` resolves to pod 0
            "SAHAB_LOCAL_ADDR": "127.0.0.1",
            "SAHAB_CHECKPOINT_DIR": str(self.checkpoints),
            "SAHAB_PEAK_FLOPS": "1e11",  # MFU needs a peak; measuring one is not what these tests are about
            "GLOO_SOCKET_IFNAME": "lo",
            "LOGLEVEL": "INFO",  # torchrun's rendezvous steps in each pod's log, for the post-mortem of a hang
            "PYTHONFAULTHANDLER": "1",  # and, on SIGABRT (Pod.print_stacks), every thread's stack in it
            "TMPDIR": str(self.tmp),
            "HOME": str(self.tmp),
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
            "PYTHONPATH": os.pathsep.join([str(FAULTS), str(ROOT)]),
            **SCALED_TIMEOUTS,
        })
        env.update(extra or {})
        return env

    def start(self, index: int, **extra: str) -> Pod:
        """A pod of `index` (a first one, or the Job's replacement for a pod that went)."""
        command = list(self.container["command"])
        assert command[0] == "sahab-entrypoint"
        n = len(self.pods.get(index, []))
        log = self.tmp / f"pod-{index}-{n}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(["sh", str(ROOT / "workloads" / "entrypoint.sh"), *command[1:], *TINY_MODEL],
                                    cwd=self.tmp, env=self.env(index, extra), stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        pod = Pod(index, proc, log)
        self.pods.setdefault(index, []).append(pod)
        return pod

    def latest(self, index: int) -> Pod:
        return self.pods[index][-1]

    def wait_for_checkpoint(self, step: int, timeout: float = 120) -> None:
        """Until the checkpoint of `step` is complete (its manifest committed)."""
        deadline = time.monotonic() + timeout
        while step not in self.complete_steps():
            if time.monotonic() > deadline:
                raise AssertionError(f"no checkpoint of step {step} within {timeout} s")
            if all(p.proc.poll() is not None for pods in self.pods.values() for p in pods):
                raise AssertionError(f"every pod exited before the checkpoint of step {step}")
            time.sleep(0.1)

    def wait_for_log(self, index: int, text: str, timeout: float = 120) -> None:
        """Until the newest pod of `index` has logged `text`."""
        pod = self.latest(index)
        deadline = time.monotonic() + timeout
        while text not in pod.log.read_text(errors="replace"):
            if time.monotonic() > deadline or pod.proc.poll() is not None:
                raise AssertionError(f"pod {index} did not log {text!r} within {timeout} s:\n{pod.tail()}")
            time.sleep(0.05)

    def complete_steps(self) -> list[int]:
        return available_steps(self.checkpoints)

    def wait_all(self, timeout: float) -> dict[int, int]:
        """Exit code of each index's newest pod; kills every pod still running after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        try:
            return {i: pods[-1].wait(max(0.1, deadline - time.monotonic())) for i, pods in self.pods.items()}
        except AssertionError as timed_out:
            # One pod's silence says little: what every pod of the run printed says which one held the others,
            # and where each process still running is stuck.
            for pods in self.pods.values():
                for pod in pods:
                    pod.print_stacks()
            logs = "\n".join(f"--- {pod.log.name}:\n{pod.tail(STUCK_LINES)}" for pods in self.pods.values()
                             for pod in pods)
            raise AssertionError(f"{timed_out}\n{logs}") from None
        finally:
            self.kill_all()

    def kill_all(self) -> None:
        for pods in self.pods.values():
            for pod in pods:
                pod.kill()


@dataclass
class Pod:
    index: int
    proc: subprocess.Popen
    log: Path

    def kill(self) -> None:
        """SIGKILL to every process of the pod, as when its node is lost. A pod already waited for has no process
        left: its pid, and those below it, may be another test's by now (pid_max can be 32768), so none is sent."""
        if self.proc.poll() is None:  # unreaped until wait(): the pid cannot be reused meanwhile
            for pid in [self.proc.pid, *descendants(self.proc.pid)]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        self.proc.wait()

    def print_stacks(self) -> None:
        """Every Python process still running in the pod (agent, workers) writes each thread's stack to the pod's log
        and ends (faulthandler on SIGABRT): where a run that outlived its bound was stuck."""
        if self.proc.poll() is not None:  # the same guard as kill(): no pid of a reaped pod is signalled
            return
        stuck = []
        for pid in descendants(self.proc.pid):
            with contextlib.suppress(OSError):
                if b"python" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]:
                    os.kill(pid, signal.SIGABRT)
                    stuck.append(pid)
        deadline = time.monotonic() + 5
        while any(_state(pid) not in ("", "Z") for pid in stuck) and time.monotonic() < deadline:
            time.sleep(0.1)

    def signal_workers(self, signum: int) -> None:
        """SIGSTOP freezes the pod's workers mid-run (its agent goes on), SIGCONT lets them go on."""
        for pid in self.workers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.print_stacks()
            self.kill()
            raise AssertionError(f"pod {self.index} still running after {timeout:.0f} s:\n{self.tail(STUCK_LINES)}") \
                from None

    def workers(self) -> list[int]:
        """The torchrun workers of this pod (not the agent)."""
        found = []
        for pid in descendants(self.proc.pid):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(part.endswith(b"workloads.train") for part in cmdline) and b"torch.distributed.run" not in cmdline \
                    and not any(part.endswith(b"torchrun") for part in cmdline):
                found.append(pid)
        return found

    def events(self, kind: str) -> list[dict]:
        out = []
        for line in self.log.read_text(errors="replace").splitlines():
            if line.startswith("{") and f'"event": "{kind}"' in line:
                out.append(json.loads(line))
        return out

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (state, ppid, ...), or [] once the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _state(pid: int) -> str:
    """The process's state letter (Z: exited, not yet reaped), or "" once it is gone."""
    return (_stat(pid) or [""])[0]


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, whatever session it started."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = _stat(int(entry))
        if stat:
            children.setdefault(int(stat[1]), []).append(int(entry))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found

"""The ansible-runner driver's pure parts: inventory, outcomes, failure budget, content hash."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sahab.components.onprem import runner
from sahab.components.onprem.runner import ANSIBLE_DIR, Host, HostOutcome, RunResult

ROOT = Path(__file__).resolve().parents[3]


def test_inventory_puts_each_host_in_its_group_and_verifies_host_keys():
    inventory = runner.build_inventory(
        [
            Host("gpu-1", "10.1.0.5", "gpu_nodes", vars={"sahab_kubernetes_node_pool": "a100"}),
            Host("cp-1", "10.1.0.2", "control_plane", port=2222, user="ops"),
        ],
        known_hosts_file="/run/kh",
    )
    groups = inventory["all"]["children"]
    assert set(groups) == {"control_plane", "gpu_nodes", "cpu_nodes", "site_gateways"}
    assert groups["gpu_nodes"]["hosts"]["gpu-1"] == {
        "ansible_host": "10.1.0.5",
        "ansible_port": 22,
        "ansible_user": "root",
        "sahab_kubernetes_node_pool": "a100",
    }
    assert groups["control_plane"]["hosts"]["cp-1"]["ansible_port"] == 2222
    assert groups["cpu_nodes"]["hosts"] == {}
    ssh_args = inventory["all"]["vars"]["ansible_ssh_args"]
    assert ssh_args.startswith("-o StrictHostKeyChecking=yes ")
    assert "-o 'UserKnownHostsFile=\"/run/kh\"' -o GlobalKnownHostsFile=/dev/null" in ssh_args


def test_without_known_hosts_the_operators_file_is_used_strictly():
    ssh_args = runner.build_inventory([Host("a", "10.0.0.1", "cpu_nodes")])["all"]["vars"]["ansible_ssh_args"]
    assert ssh_args.startswith("-o StrictHostKeyChecking=yes ")
    assert "KnownHostsFile" not in ssh_args


def test_a_refused_host_key_is_said_in_one_sentence():
    changed = ("Failed to connect to the host via ssh: @@@@@@@@@@@\r\n@    WARNING: REMOTE HOST IDENTIFICATION HAS "
               "CHANGED!     @\r\n" + "x" * 2000 + "\r\nHost key verification failed.")
    unknown = ("Failed to connect to the host via ssh: No ED25519 host key is known for [10.0.0.1]:22 and you have "
               "requested strict checking.\r\nHost key verification failed.")
    events = [{"event": "runner_on_unreachable",
               "event_data": {"host": h, "task": "Gathering Facts", "res": {"msg": m}}}
              for h, m in (("a", changed), ("b", unknown), ("c", "Connection refused"))]
    messages = runner._failure_messages(events, stats={"dark": {"a": 1, "b": 1, "c": 1}})
    assert messages["a"].startswith("Gathering Facts: SSH host key verification failed: the key the server offered "
                                    "differs from the one in known_hosts")
    assert "no key in known_hosts for this address" in messages["b"]
    assert messages["c"] == "Gathering Facts: Connection refused"
    assert all(len(m) < runner.MESSAGE_LIMIT for m in messages.values())


def test_a_host_must_be_in_a_known_group():
    with pytest.raises(ValueError, match="group must be one of"):
        Host("x", "10.0.0.1", "workers")


def test_outcomes_from_the_play_recap():
    stats = {
        "ok": {"a": 10, "b": 9, "c": 3, "d": 1},
        "changed": {"a": 2},
        "failures": {"c": 1},
        "dark": {"d": 1},
        "skipped": {"b": 4},
    }
    outcomes = runner.outcomes_from_stats(stats, ["a", "b", "c", "d", "e"], {"c": "Install containerd: boom"})
    assert {name: o.status for name, o in outcomes.items()} == {
        "a": "changed",
        "b": "ok",
        "c": "failed",
        "d": "unreachable",
        "e": "unreachable",
    }
    assert outcomes["c"].message == "Install containerd: boom"
    assert outcomes["e"].message == "no result from this host"
    assert outcomes["b"].skipped == 4


def test_failure_budget():
    outcomes = {n: HostOutcome(n, s) for n, s in [("a", "ok"), ("b", "failed"), ("c", "unreachable")]}
    assert RunResult(outcomes, failure_budget=2, rc=2).within_budget
    assert not RunResult(outcomes, failure_budget=1, rc=2).within_budget
    assert RunResult(outcomes, failure_budget=1, rc=2).failed_hosts == ["b", "c"]


def test_failure_messages_name_the_failure_that_failed_each_host():
    events = [
        {
            "event": "runner_on_failed",
            "event_data": {"host": "a", "task": "probe", "ignore_errors": True, "res": {"msg": "ignored"}},
        },
        {
            "event": "runner_on_unreachable",
            "event_data": {"host": "b", "task": "Gathering Facts", "res": {"msg": "Connection refused"}},
        },
        {
            "event": "runner_on_failed",
            "event_data": {"host": "a", "task": "Install", "res": {"msg": "no package"}},
        },
        {"event": "runner_on_failed", "event_data": {"host": "a", "task": "Later", "res": {"msg": "second"}}},
    ]
    assert runner._failure_messages(events, stats={"dark": {"b": 1}, "failures": {"a": 2}}) == {
        "b": "Gathering Facts: Connection refused",
        "a": "Install: no package",
    }


def test_a_failed_command_says_role_task_rc_and_its_first_stderr_lines():
    stderr = "\n".join(["error execution phase preflight: [preflight] Some fatal errors occurred:",
                        "\t[ERROR KubeletVersion]: the kubelet version is higher than the control plane version",
                        "", "line 3", "line 4", "line 5", "line 6 is past the limit"])
    events = [{"event": "runner_on_failed", "event_data": {
        "host": "w-3", "role": "sahab_node_join", "task": "Join as a worker",
        "res": {"rc": 1, "stderr": stderr, "msg": "non-zero return code"}}}]
    message = runner._failure_messages(events)["w-3"]
    assert message.startswith("sahab_node_join : Join as a worker: rc=1: error execution phase preflight")
    assert "[ERROR KubeletVersion]" in message and "line 5" in message
    assert "line 6" not in message  # the first lines say why; the rest is noise in an outcome
    assert "non-zero return code" not in message


def test_a_failed_loop_item_is_named():
    item_failed = {"event": "runner_item_on_failed", "event_data": {
        "host": "cpu-1", "role": "sahab_data_volumes", "task": "Format the device with LUKS2",
        "res": {"item": {"name": "sahab-data", "device": "/dev/disk/by-id/x"}, "rc": 5,
                "stderr": "Device /dev/disk/by-id/x is in use", "failed": True}}}
    task_failed = {"event": "runner_on_failed", "event_data": {
        "host": "cpu-1", "role": "sahab_data_volumes", "task": "Format the device with LUKS2",
        "res": {"msg": "One or more items failed", "results": [item_failed["event_data"]["res"]]}}}
    assert runner._failure_messages([item_failed, task_failed])["cpu-1"] == (
        "sahab_data_volumes : Format the device with LUKS2 [item sahab-data]: rc=5: Device /dev/disk/by-id/x is in use")
    labelled = {"host": "gpu-1", "task": "Fail when a package is missing",
                "res": {"_ansible_item_label": "nvidia-open", "msg": "nvidia-open is not available", "failed": True}}
    loop = {"host": "gpu-1", "task": "Fail when a package is missing",
            "res": {"msg": "One or more items failed", "results": [labelled["res"]]}}
    events = [{"event": "runner_item_on_failed", "event_data": labelled},
              {"event": "runner_on_failed", "event_data": loop}]
    assert runner._failure_messages(events)["gpu-1"] == (
        "Fail when a package is missing [item nvidia-open]: nvidia-open is not available")


def test_an_ignored_loop_failure_is_not_the_hosts_failure():
    """runner_item_on_failed carries no ignore_errors flag: the loop's runner_on_failed does, and it decides."""
    item = {"host": "w-1", "task": "Probe each mirror", "res": {"item": "m1", "msg": "no answer", "failed": True}}
    events = [
        {"event": "runner_item_on_failed", "event_data": item},
        {"event": "runner_on_failed", "event_data": {
            **item, "ignore_errors": True, "res": {"msg": "One or more items failed", "results": [item["res"]]}}},
        {"event": "runner_on_failed", "event_data": {"host": "w-1", "task": "Install", "res": {"msg": "no package"}}},
    ]
    assert runner._failure_messages(events, stats={"failures": {"w-1": 1}}) == {"w-1": "Install: no package"}


def test_an_ignored_unreachable_delegate_is_not_the_hosts_failure():
    """ansible-core sends runner_on_unreachable for a task with ignore_unreachable too, naming the delegate's
    address under this host, and ansible-runner's event says nothing of it: the recap (dark 0) tells it apart."""
    ignored = {"event": "runner_on_unreachable", "event_data": {
        "host": "w-1", "role": "sahab_kubernetes", "task": "Ask the running cluster for its version",
        "res": {"unreachable": True, "msg": "ssh: connect to host 127.0.0.60 port 22: Connection refused"}}}
    real = {"event": "runner_on_failed", "event_data": {
        "host": "w-1", "role": "sahab_node_join", "task": "Fail when the first control-plane host cannot be reached",
        "res": {"msg": "w-1 cannot join: the first control-plane host cp-1 (127.0.0.60) is unreachable"}}}
    assert runner._failure_messages([ignored, real], stats={"failures": {"w-1": 1}, "ok": {"w-1": 5}}) == {
        "w-1": "sahab_node_join : Fail when the first control-plane host cannot be reached: w-1 cannot join: the "
               "first control-plane host cp-1 (127.0.0.60) is unreachable"}
    # An ignored unreachable on a host that then converged is no failure at all.
    assert runner._failure_messages([ignored], stats={"ok": {"w-1": 5}}) == {}
    # A host that really went unreachable later: that is its failure, not the ignored one before it.
    lost = {"event": "runner_on_unreachable", "event_data": {
        "host": "w-1", "task": "Install", "res": {"unreachable": True, "msg": "ssh: connect to host 127.0.0.55"}}}
    assert runner._failure_messages([ignored, lost], stats={"dark": {"w-1": 1}})["w-1"] == (
        "Install: ssh: connect to host 127.0.0.55")


def test_a_rescued_failure_is_not_the_hosts_failure_the_later_one_is():
    events = [
        {"event": "runner_on_failed", "event_data": {"host": "a", "task": "Try the fast way", "res": {"msg": "no"}}},
        {"event": "runner_on_failed", "event_data": {"host": "a", "task": "Install", "res": {"msg": "no package"}}},
    ]
    assert runner._failure_messages(events, stats={"failures": {"a": 1}, "rescued": {"a": 1}}) == {
        "a": "Install: no package"}


def test_a_host_that_did_not_reach_the_last_play_is_not_reported_converged():
    """ansible-playbook runs no later play once a whole batch of a play failed (serial: 1 and one failure); the
    hosts it left out are ok in the recap. Only those that ran the last play are ok or changed."""
    stats = {"ok": {"w-1": 9, "w-2": 7, "w-3": 8, "w-4": 2, "w-5": 1}, "changed": {"w-2": 1}, "failures": {"w-1": 1},
             "dark": {"w-4": 1}}
    messages = {"w-1": "sahab_node_upgrade : Drain the node: rc=1: timed out", "w-4": "Gathering Facts: refused"}
    outcomes = runner.outcomes_from_stats(stats, ["w-1", "w-2", "w-3", "w-4", "w-5"], messages,
                                          reached_end=["w-3", "w-5"],
                                          stopped="Upgrade the workers, one at a time, drained")
    # w-5 ran nothing but the end play (no play of the playbook was for it): no result, as without the end play.
    assert {n: o.status for n, o in outcomes.items()} == {"w-1": "failed", "w-2": "failed", "w-3": "ok",
                                                          "w-4": "unreachable", "w-5": "unreachable"}
    assert outcomes["w-3"].ok == 7  # the end play's task is not counted
    assert outcomes["w-1"].message == messages["w-1"]
    assert outcomes["w-2"].message.startswith(
        "the playbook stopped before its last play, in the play 'Upgrade the workers, one at a time, drained'")
    assert outcomes["w-3"].message == ""
    # Not known (a recap alone): the recap decides, as before.
    assert runner.outcomes_from_stats(stats, ["w-2"], {})["w-2"].status == "changed"


def test_no_log_failures_are_named_and_secret_values_never_appear():
    secret = "join-token-secret-abcdef.0123456789abcdef"
    events = [
        {"event": "runner_on_failed", "event_data": {
            "host": "a", "role": "sahab_node_join", "task": "Fetch the token",
            "res": {"censored": "the output has been hidden due to the fact that 'no_log: true' was specified"}}},
        {"event": "runner_on_failed", "event_data": {
            "host": "b", "task": "Join", "res": {"rc": 1, "stderr": f"bad token {secret} for b"}}},
    ]
    messages = runner._failure_messages(events, runner._secret_strings({"tokens": {"b": secret}, "short": "x"}))
    assert messages["a"] == "sahab_node_join : Fetch the token: failed; its output is hidden (no_log)"
    assert messages["b"] == "Join: rc=1: bad token <secret> for b"


def test_skip_notes_come_from_the_roles_messages_including_loops():
    events = [
        {
            "event": "runner_on_ok",
            "event_data": {
                "host": "a",
                "task_action": "ansible.builtin.debug",
                "res": {"msg": "SKIPPED on a: no GPU"},
            },
        },
        {
            "event": "runner_item_on_ok",
            "event_data": {
                "host": "a",
                "task_action": "ansible.builtin.debug",
                "res": {"msg": "SKIPPED on a: data volume x"},
            },
        },
        {
            "event": "runner_on_ok",
            "event_data": {
                "host": "a",
                "task_action": "ansible.builtin.debug",
                "res": {"msg": "just chatter"},
            },
        },
        {
            "event": "runner_on_ok",
            "event_data": {
                "host": "a",
                "task_action": "ansible.builtin.command",
                "res": {"msg": "SKIPPED but not a note"},
            },
        },
    ]
    assert runner._skip_notes(events) == {"a": ["SKIPPED on a: no GPU", "SKIPPED on a: data volume x"]}


def test_content_hash_follows_roles_inventory_and_variables(tmp_path):
    playbook = tmp_path / "ansible"
    shutil.copytree(ANSIBLE_DIR, playbook)
    inventory = runner.build_inventory([Host("cpu-1", "10.0.0.7", "cpu_nodes")])
    base = runner.content_hash(playbook, inventory, {"sahab_airgapped": True})
    assert runner.content_hash(playbook, inventory, {"sahab_airgapped": True}) == base
    assert runner.content_hash(playbook, inventory, {"sahab_airgapped": False}) != base
    moved = runner.build_inventory([Host("cpu-1", "10.0.0.8", "cpu_nodes")])
    assert runner.content_hash(playbook, moved, {"sahab_airgapped": True}) != base
    defaults = playbook / "roles/sahab_os/defaults/main.yml"
    defaults.write_text(
        defaults.read_text().replace("sahab_os_ssh_max_auth_tries: 3", "sahab_os_ssh_max_auth_tries: 4")
    )
    assert runner.content_hash(playbook, inventory, {"sahab_airgapped": True}) != base


def test_run_refuses_an_empty_host_list():
    with pytest.raises(ValueError, match="no hosts"):
        runner.run_playbook([], private_key="k", known_hosts=None)


def test_artifacts_are_the_set_stats_data_of_the_final_recap():
    events = [
        {"event": "playbook_on_stats", "event_data": {"artifact_data": {"old": 1}}},
        {"event": "runner_on_ok", "event_data": {}},
        {"event": "playbook_on_stats", "event_data": {"artifact_data": {"sahab_kubeconfig": "apiVersion: v1"}}},
    ]
    assert runner._artifacts(events) == {"sahab_kubeconfig": "apiVersion: v1"}
    assert runner._artifacts([]) == {}


def test_a_playbook_that_cannot_run_is_an_error_not_unreachable_hosts(tmp_path):
    playbook = tmp_path / "ansible"
    playbook.mkdir()
    (playbook / "site.yml").write_text("- hosts: all\n  tasks:\n    - not_a_module: {}\n")
    with pytest.raises(RuntimeError, match=r"did not run.*ERROR"):
        runner.run_playbook(
            [Host("cpu-1", "127.0.0.1", "cpu_nodes", port=1)], private_key=None, known_hosts="", playbook_dir=playbook
        )


# In a process whose forks run a handler that aborts the child, as gRPC's fork handler now and then does where
# another thread is in gRPC (a Pulumi provider serving the engine while it converges): the playbook still runs.
FORK_HANDLER_THAT_ABORTS = '''
import os, sys
from sahab.components.onprem.runner import Host, run_playbook
os.register_at_fork(after_in_child=os.abort)
try:
    run_playbook([Host("cpu-1", "127.0.0.1", "cpu_nodes", port=1)], private_key=None, known_hosts="",
                 playbook_dir=sys.argv[1])
except RuntimeError as failure:
    print(failure)
'''


def test_a_fork_handler_that_aborts_children_cannot_end_the_playbook(tmp_path):
    playbook = tmp_path / "ansible"
    playbook.mkdir()
    (playbook / "site.yml").write_text("- hosts: all\n  tasks:\n    - not_a_module: {}\n")
    done = subprocess.run([sys.executable, "-c", FORK_HANDLER_THAT_ABORTS, str(playbook)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.startswith("ansible-playbook did not run (failed, rc=4): [ERROR]: couldn't resolve module"), \
        done.stdout + done.stderr[-2000:]


def test_forks_are_capped_however_many_hosts(monkeypatch, tmp_path):
    import ansible_runner.interface

    seen = {}

    def fake_init(**kwargs):
        seen["forks"] = kwargs["forks"]
        raise RuntimeError("stop here")

    monkeypatch.setattr(ansible_runner.interface, "init_runner", fake_init)
    (tmp_path / "site.yml").write_text("---\n")
    for count, forks in ((3, 5), (40, 40), (800, runner.MAX_FORKS)):
        hosts = [Host(f"n{i}", f"10.0.{i // 250}.{i % 250 + 1}", "cpu_nodes") for i in range(count)]
        with pytest.raises(RuntimeError, match="stop here"):
            runner.run_playbook(hosts, private_key=None, known_hosts="", playbook_dir=tmp_path)
        assert seen["forks"] == forks


def test_the_host_that_runs_kubeadm_init_is_the_first_by_name_whatever_the_listed_order(tmp_path):
    """site.yml's first control_plane host initialises the cluster: Ansible's own inventory parser reads the
    inventory Sahab writes, and the group comes out sorted by name, as the cluster's field documents."""
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from sahab.components.onprem.cluster import OnPremClusterArgs, control_plane_inventory
    from sahab.components.onprem.host_args import OnPremAccessArgs, OnPremHostArgs

    listed = ("venus", "earth", "mars")
    cluster = OnPremClusterArgs(
        control_plane_hosts=tuple(OnPremHostArgs(name=n, address=f"127.0.0.{i}") for i, n in enumerate(listed, 5)),
        vip="127.0.0.20", access=OnPremAccessArgs(ssh_private_key="key"))
    path = tmp_path / "inventory.json"
    path.write_text(runner.ansible_json(runner.build_inventory(control_plane_inventory(cluster))))
    parsed = InventoryManager(loader=DataLoader(), sources=[str(path)])
    assert [h.name for h in parsed.groups["control_plane"].get_hosts()] == ["earth", "mars", "venus"]
    assert "first by name" in OnPremClusterArgs.model_fields["control_plane_hosts"].description


KILL_THE_PLAYBOOK = '''
import os, signal, sys
marker = ("SAHAB_TEST_RUN=" + sys.argv[1]).encode()

def cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read()

def of_this_run(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return marker in f.read().split(b"\\0") and b"ansible-playbook" in cmdline(pid)
    except OSError:
        return False

runs = [int(p) for p in os.listdir("/proc") if p.isdigit() and of_this_run(int(p))]
for pid in runs:  # the playbook's own process, not its forks (their parent is it)
    with open(f"/proc/{pid}/stat") as f:
        parent = int(f.read().rsplit(")", 1)[1].split()[1])
    if parent not in runs:
        os.kill(pid, signal.SIGTERM)
'''


def test_a_playbook_ended_by_a_signal_is_said_to_be_so(tmp_path, monkeypatch):
    """Another process ends ansible-playbook mid-run (here a task of its own finds it and sends SIGTERM): the error
    says so, instead of a run that "did not run" with no message."""
    playbook = tmp_path / "ansible"
    playbook.mkdir()
    (playbook / "kill.py").write_text(KILL_THE_PLAYBOOK)
    (playbook / "site.yml").write_text(
        "- hosts: all\n  gather_facts: false\n  tasks:\n"
        f"    - ansible.builtin.command: {sys.executable} {playbook / 'kill.py'} {tmp_path}\n"
        "      delegate_to: localhost\n")
    monkeypatch.setenv("SAHAB_TEST_RUN", str(tmp_path))  # this run alone: its folder
    monkeypatch.setenv("ANSIBLE_PYTHON_INTERPRETER", sys.executable)
    with pytest.raises(RuntimeError, match=r"^ansible-playbook was ended by SIGTERM before its play recap "
                                           r"\(something killed it, or it crashed\): no host's outcome is known$"):
        runner.run_playbook([Host("cpu-1", "127.0.0.1", "cpu_nodes", port=1)], private_key=None, known_hosts="",
                            playbook_dir=playbook)

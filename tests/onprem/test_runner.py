"""The ansible-runner driver's pure parts: inventory, outcomes, failure budget, content hash."""

from __future__ import annotations

import shutil

import pytest

from components.onprem import runner
from components.onprem.runner import ANSIBLE_DIR, Host, HostOutcome, RunResult


def test_inventory_puts_each_host_in_its_group_and_verifies_host_keys():
    inventory = runner.build_inventory(
        [
            Host("gpu-1", "10.1.0.5", "gpu_nodes", vars={"sahab_kubernetes_node_pool": "a100"}),
            Host("cp-1", "10.1.0.2", "control_plane", port=2222, user="ops"),
        ],
        known_hosts_file="/run/kh",
    )
    groups = inventory["all"]["children"]
    assert set(groups) == {"control_plane", "gpu_nodes", "cpu_nodes"}
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
    messages = runner._failure_messages(events)
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


def test_failure_messages_take_the_first_real_failure_per_host():
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
    assert runner._failure_messages(events) == {
        "b": "Gathering Facts: Connection refused",
        "a": "Install: no package",
    }


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

"""On real Debian 12 hosts: a host that did not run the playbook to its end is never reported converged.

ansible-playbook runs no later play once every host of one batch of a play has failed (`serial: 1` and one
failure: ansible-core executor/playbook_executor.py), and the hosts it left out show no failure in the recap. The
runner appends a play that notes who reached the end, and reports the others failed, saying where it stopped.
"""

from __future__ import annotations

import shutil

import pytest
import yaml
from sahab.components.onprem import runner
from sahab.components.onprem.runner import Host

pytestmark = [pytest.mark.hosts, pytest.mark.timeout(300)]

PLAYBOOK = """\
- name: One host at a time
  hosts: cpu_nodes
  gather_facts: false
  serial: 1
  tasks:
    - name: Take this host's turn
      ansible.builtin.command: hostname
      changed_when: false
    - name: Fail the second host's turn
      ansible.builtin.fail:
        msg: "{{ inventory_hostname }} failed its turn"
      when: inventory_hostname == 'flow-2'

- name: Every host afterwards
  hosts: cpu_nodes
  gather_facts: false
  tasks:
    - name: Mark the host
      ansible.builtin.file:
        path: /root/later-play
        state: touch
        mode: "0600"
      tags: [later]
"""


@pytest.fixture(scope="module")
def hosts(host_factory):
    return [host_factory(f"flow-{i}", 40 + i) for i in (1, 2, 3)]


def _run(hosts, client_key, host_factory, playbook_dir, **kwargs):
    return runner.run_playbook(
        [Host(h.name, h.address, "cpu_nodes", port=h.port) for h in hosts], private_key=client_key[0].read_text(),
        known_hosts=host_factory.known_hosts(), playbook_dir=playbook_dir, failure_budget=3, **kwargs)


def test_hosts_left_out_by_a_stopped_playbook_are_failed_not_ok(hosts, client_key, host_factory, tmp_path):
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    result = _run(hosts, client_key, host_factory, tmp_path)
    status = {name: o.status for name, o in result.outcomes.items()}
    # flow-1 ran its turn, then Ansible stopped the playbook after flow-2's turn: no later play for anyone.
    assert not any(h.exists("/root/later-play") for h in hosts)
    assert status["flow-2"] == "failed"
    assert result.outcomes["flow-2"].message == "Fail the second host's turn: flow-2 failed its turn"
    assert status["flow-1"] == "failed", result.outcomes["flow-1"]
    assert result.outcomes["flow-1"].message.startswith(
        "the playbook stopped before its last play, in the play 'One host at a time'")
    assert status["flow-3"] in ("failed", "unreachable")  # never started: no result at all
    assert runner.REACHED_END not in result.artifacts


def test_hosts_that_ran_to_the_end_are_ok_with_tags_and_limit(hosts, client_key, host_factory, tmp_path):
    (tmp_path / "site.yml").write_text(PLAYBOOK.replace("'flow-2'", "'nobody'"))
    result = _run(hosts, client_key, host_factory, tmp_path)
    assert {o.status for o in result.outcomes.values()} == {"changed"}
    assert all(h.exists("/root/later-play") for h in hosts)
    # One tag and a limit: the end is noted all the same, and its task is not counted.
    result = _run(hosts, client_key, host_factory, tmp_path, tags=["later"], limit="flow-1,flow-3")
    assert sorted(result.outcomes) == ["flow-1", "flow-3"]
    assert {(o.status, o.ok, o.changed) for o in result.outcomes.values()} == {("changed", 1, 1)}, result.outcomes


DELEGATE_PLAYBOOK = """\
- name: Ask the first control-plane host, which is down
  hosts: cpu_nodes
  gather_facts: false
  tasks:
    - name: Ask the first control-plane host
      ansible.builtin.command: hostname
      delegate_to: "{{ groups['control_plane'][0] }}"
      changed_when: false
      ignore_unreachable: true
      ignore_errors: true
    - name: Fail the first host for a reason of its own
      ansible.builtin.fail:
        msg: "{{ inventory_hostname }} has a problem of its own"
      when: inventory_hostname == 'flow-1'
"""


def test_an_ignored_unreachable_delegate_is_not_a_hosts_failure(hosts, client_key, host_factory, tmp_path):
    """ansible-core reports the delegate's unreachable answer under the host even with ignore_unreachable, and
    ansible-runner's event does not say it was ignored: the host's failure is still its own, later one."""
    (tmp_path / "site.yml").write_text(DELEGATE_PLAYBOOK)
    nodes = [Host(h.name, h.address, "cpu_nodes", port=h.port) for h in hosts[:2]]
    down = Host("flow-cp", "127.0.0.1", "control_plane", port=1)  # nothing listens on port 1
    result = runner.run_playbook([*nodes, down], private_key=client_key[0].read_text(),
                                 known_hosts=host_factory.known_hosts(), playbook_dir=tmp_path, failure_budget=3)
    assert result.outcomes["flow-1"].status == "failed"
    assert result.outcomes["flow-1"].message == (
        "Fail the first host for a reason of its own: flow-1 has a problem of its own")
    assert result.outcomes["flow-2"].status == "ok"
    assert result.outcomes["flow-2"].message == ""


def _site_play(name: str) -> dict:
    """The play of site.yml by this name; an empty one if there is none (the outcomes then say what is missing)."""
    plays = yaml.safe_load((runner.ANSIBLE_DIR / "site.yml").read_text())
    return next((play for play in plays if play["name"] == name), {"name": name, "hosts": "all", "tasks": []})


def test_a_failed_upgrade_stops_no_other_host(hosts, client_key, host_factory, tmp_path):
    """site.yml's own worker upgrade play (serial: 1), its worker join play's guard and its last play, with the real
    sahab_node_upgrade role: flow-1's upgrade fails (kubeadm at a version no source has), flow-2 and flow-3 still
    run the join play after it, and flow-1 is failed at the end with the failure of its upgrade."""
    playbook = tmp_path / "ansible"
    shutil.copytree(runner.ANSIBLE_DIR, playbook)
    facts = {"name": "What sahab_kubernetes would have decided", "hosts": "cpu_nodes", "gather_facts": False,
             "tasks": [{"name": "Decide", "ansible.builtin.set_fact": {
                 "sahab_form_cluster": True, "sahab_node_upgrade_drain": False,
                 "sahab_kubernetes_registered": "{{ inventory_hostname == 'flow-1' }}",
                 "sahab_kubernetes_release": {"package": "9.9.9-1.1", "version": "v9.9.9"}}}]}
    join = _site_play("Join the worker nodes")
    join = {**{k: v for k, v in join.items() if k != "roles"}, "tasks": [
        {"name": "Stand in for the join", "ansible.builtin.file": {"path": "/root/joined", "state": "touch",
                                                                 "mode": "0600"}}]}
    plays = [facts, _site_play("Upgrade the workers, one at a time, drained"), join,
             _site_play("Fail the hosts whose failure was kept for the end of the run")]
    (playbook / "site.yml").write_text(yaml.safe_dump(plays, sort_keys=False))
    result = _run(hosts, client_key, host_factory, playbook)
    status = {name: o.status for name, o in result.outcomes.items()}
    assert status == {"flow-1": "failed", "flow-2": "changed", "flow-3": "changed"}, result.outcomes
    assert [h.exists("/root/joined") for h in hosts] == [False, True, True]
    message = result.outcomes["flow-1"].message
    assert message.startswith("Fail with the failure kept earlier in the run: sahab_node_upgrade : Upgrade kubeadm "
                              "first: "), message
    assert message.endswith("No package matching 'kubeadm' is available"), message

"""On a real Debian 12 host: the converge goes ahead only with the host's own key in known_hosts.

A wrong key (someone else answering on the site network) and an unknown host both fail the converge through the
dynamic provider's own path, naming the host and saying what is wrong, even from an operator environment that
asks Ansible to skip the check.
"""

from __future__ import annotations

import pytest
from sahab.components.onprem.host_args import OnPremAccessArgs, OnPremHostArgs
from sahab.components.onprem.inventory import converge_inputs, hosts_for
from sahab.components.onprem.playbook_run import PlaybookProvider

from tools import testhost

pytestmark = [pytest.mark.hosts, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def host(host_factory):
    return host_factory("hk-1", 30)


@pytest.fixture(autouse=True)
def operator_says_skip_checks(monkeypatch):
    monkeypatch.setenv("ANSIBLE_HOST_KEY_CHECKING", "False")
    monkeypatch.setenv("ANSIBLE_SSH_COMMON_ARGS", "-o StrictHostKeyChecking=no")


def _props(host, client_key, known_hosts: str, playbook_dir: str | None = None) -> dict:
    spec = OnPremHostArgs(name=host.name, address=host.address, port=host.port, user="root", cpus=2, memory_gib=4)
    access = OnPremAccessArgs(ssh_private_key=client_key[0].read_text(), known_hosts=known_hosts,
                              skip_hardware_checks=True, playbook_dir=playbook_dir)
    return {"run_name": "host-keys", **converge_inputs(hosts_for([spec], "cpu_nodes"), access, "")}


def _another_key_for(host, tmp_path) -> str:
    key = tmp_path / "impostor"
    testhost._run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)])
    return f"[{host.address}]:{host.port} " + " ".join(key.with_suffix(".pub").read_text().split()[:2])


def test_a_wrong_host_key_fails_the_converge_naming_the_host(host, client_key, tmp_path):
    props = _props(host, client_key, _another_key_for(host, tmp_path))
    with pytest.raises(RuntimeError) as failure:
        PlaybookProvider().create(props)
    message = str(failure.value)
    assert "1 host(s) failed" in message and "hk-1: unreachable" in message
    assert "SSH host key verification failed" in message and "differs from the one in known_hosts" in message
    assert not host.exists("/etc/containerd/config.toml")  # nothing was converged


def test_an_unknown_host_fails_the_converge(host, client_key):
    with pytest.raises(RuntimeError, match=r"hk-1: unreachable .*SSH host key verification failed.*no key in "
                                           r"known_hosts"):
        PlaybookProvider().create(_props(host, client_key, ""))


def test_the_hosts_own_key_lets_it_converge(host, client_key, tmp_path):
    """The control: the same run with the right key reaches the host (a one-task playbook, to stay quick)."""
    playbook = tmp_path / "ansible"
    playbook.mkdir()
    (playbook / "site.yml").write_text("- hosts: all\n  gather_facts: false\n  tasks:\n"
                                       "    - ansible.builtin.command: hostname\n      changed_when: false\n")
    result = PlaybookProvider().create(_props(host, client_key, host.known_hosts_line, str(playbook)))
    assert result.outs["outcomes"]["hk-1"]["status"] == "ok"

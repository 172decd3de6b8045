"""Host keys are verified for real: the ssh command lines Ansible runs, read back with `ssh -G`.

ansible-runner turns ANSIBLE_HOST_KEY_CHECKING off unless told otherwise, and ansible-core then adds
`-o StrictHostKeyChecking=no` ahead of the inventory's ssh_common_args; ssh keeps the first value of an option.
These tests run the playbook through `run_playbook` with an ssh wrapper that records every argv Ansible builds
(then runs the real ssh), from an operator environment that tries to turn checking off, and ask ssh itself what
it would do with each argv.
"""

from __future__ import annotations

import json
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from sahab.components.onprem import runner
from sahab.components.onprem.runner import Host

pytestmark = pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client is not installed")

WRAPPER = """#!{python}
import json, os, sys
with open({log!r}, "a") as log:
    log.write(json.dumps(sys.argv) + "\\n")
os.execvp("ssh", ["ssh", *sys.argv[1:]])
"""


def effective(argv: list[str]) -> dict[str, str]:
    """What ssh would do with this command line: `ssh -G` on the very same arguments."""
    result = subprocess.run(["ssh", "-G", *argv[1:]], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)


def first_value(argv: list[str], option: str) -> str | None:
    """The value ssh uses for an `-o Option=value` given several times: the first one."""
    for i, arg in enumerate(argv):
        text = argv[i + 1] if arg == "-o" and i + 1 < len(argv) else arg.removeprefix("-o") if arg.startswith("-o") \
            else ""
        key, _, value = text.partition("=")
        if key.lower() == option.lower():
            return value
    return None


@pytest.fixture
def hostile_operator(monkeypatch, tmp_path):
    """An operator whose environment says to skip host key checks, with ssh wrapped to record its argv."""
    log = tmp_path / "ssh-argv.jsonl"
    wrapper = tmp_path / "ssh-wrapper"
    wrapper.write_text(WRAPPER.format(python=sys.executable, log=str(log)))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("ANSIBLE_SSH_EXECUTABLE", str(wrapper))
    monkeypatch.setenv("ANSIBLE_HOST_KEY_CHECKING", "False")
    monkeypatch.setenv("ANSIBLE_SSH_ARGS", "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null")
    monkeypatch.setenv("ANSIBLE_SSH_COMMON_ARGS", "-o StrictHostKeyChecking=no")
    monkeypatch.setenv("ANSIBLE_SSH_EXTRA_ARGS", "-o StrictHostKeyChecking=accept-new")
    return log


def _argvs(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.parametrize("known_hosts", ["[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHeld0n1yTh1sKey\n", None])
def test_every_ssh_ansible_runs_checks_host_keys_strictly(hostile_operator, known_hosts):
    result = runner.run_playbook([Host("cp-1", "127.0.0.1", "control_plane", port=1)], private_key=None,
                                 known_hosts=known_hosts)
    assert result.outcomes["cp-1"].status == "unreachable"  # nothing listens on port 1
    argvs = _argvs(hostile_operator)
    assert argvs, "Ansible ran no ssh"
    for argv in argvs:
        assert first_value(argv, "StrictHostKeyChecking") == "yes", argv
        config = effective(argv)
        assert config["stricthostkeychecking"] == "true", argv
        assert config["updatehostkeys"] == "false"
        if known_hosts is None:  # the operator's own known_hosts, never /dev/null
            assert config["userknownhostsfile"] != "/dev/null"
            continue
        # The inventory's known_hosts is the only one ssh reads: not ~/.ssh/known_hosts, not /etc/ssh's.
        (user_file,) = config["userknownhostsfile"].split()
        assert Path(user_file).name == "known_hosts" and Path(user_file).parent.name.startswith("sahab-ansible-")
        assert config["globalknownhostsfile"] == "/dev/null"
        assert "knownhostscommand" not in config


def test_the_inventory_puts_the_host_key_options_first_and_the_known_hosts_alone():
    inventory = runner.build_inventory([Host("a", "10.0.0.1", "cpu_nodes")], known_hosts_file="/run/sahab/kh")
    group_vars = inventory["all"]["vars"]
    assert group_vars["ansible_host_key_checking"] is True
    argv = ["ssh", *shlex.split(group_vars["ansible_ssh_args"]), "10.0.0.1"]
    assert argv[1:3] == ["-o", "StrictHostKeyChecking=yes"]
    assert '-o UserKnownHostsFile="/run/sahab/kh"' in " ".join(argv)  # quoted: ssh_config splits file lists
    config = effective(argv)
    assert config["stricthostkeychecking"] == "true"
    assert config["userknownhostsfile"] == "/run/sahab/kh"
    assert config["globalknownhostsfile"] == "/dev/null"
    assert config["controlmaster"] == "auto"  # the connection reuse ansible.cfg asked for stays


@pytest.mark.parametrize("where", ["variables", "host vars"])
@pytest.mark.parametrize("name", ["ansible_ssh_args", "ansible_host_key_checking", "ansible_ssh_common_args",
                                  "ansible_ssh_extra_args", "ansible_ssh_executable"])
def test_no_variable_can_set_a_connection_setting(where, name):
    host_vars = {name: "-o StrictHostKeyChecking=no"} if where == "host vars" else {}
    with pytest.raises(ValueError, match=f"sets {name}: connection settings are Sahab's own"):
        runner.run_playbook([Host("a", "127.0.0.1", "cpu_nodes", port=1, vars=host_vars)], private_key=None,
                            known_hosts="", variables={name: False} if where == "variables" else None)


def test_inventory_and_variables_reach_ansible_as_unsafe_text():
    """The files Ansible reads mark every string unsafe; Ansible's own loader keeps each one a string, untemplated
    (`true` and `123` included: a label value stays text)."""
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar, trust_as_template

    jinja = "{{ lookup('pipe', 'id') }}"
    data = {"all": {"hosts": {"h": {"ansible_host": f"fe80::1%{jinja}", "labels": {"team": jinja, "gpu": "true"},
                                    "taints": [{"key": jinja, "value": "123"}], "port": 22, "on": True}}}}
    text = runner.ansible_json(data)
    assert text.count("__ansible_unsafe") == 5 and json.loads(text)["all"]["hosts"]["h"]["port"] == 22
    loaded = DataLoader().load(text)
    host = loaded["all"]["hosts"]["h"]
    rendered = Templar(loader=DataLoader(), variables=host).template(  # as a role's own template uses them
        trust_as_template("{{ [ansible_host, labels, taints, port, on] }}"))
    assert rendered == [f"fe80::1%{jinja}", {"team": jinja, "gpu": "true"}, [{"key": jinja, "value": "123"}], 22,
                        True]
    assert isinstance(rendered[1]["gpu"], str) and isinstance(rendered[2][0]["value"], str)


def test_a_hostile_value_runs_nothing_on_the_operators_machine(tmp_path, monkeypatch):
    """A real run: a host variable and an extra variable that would run a command when templated reach the play
    as text, and the command never runs."""
    marker = tmp_path / "pwned"
    payload = f"{{{{ lookup('pipe', 'touch {marker}') }}}}"
    playbook = tmp_path / "ansible"
    playbook.mkdir()
    (playbook / "site.yml").write_text(
        "- hosts: all\n  gather_facts: false\n  tasks:\n"
        "    - ansible.builtin.set_stats:\n        data: {seen: '{{ [label, extra] }}'}\n"
        "      delegate_to: localhost\n")
    monkeypatch.setenv("ANSIBLE_PYTHON_INTERPRETER", sys.executable)
    result = runner.run_playbook(
        [Host("cp-1", "127.0.0.1", "control_plane", port=1, vars={"label": payload})], private_key=None,
        known_hosts="", variables={"extra": payload}, playbook_dir=playbook)
    assert not marker.exists()
    assert result.artifacts["seen"] == [payload, payload]

"""Host keys `sahab init` records in a site reach Ansible as the only keys it trusts for those hosts."""

from __future__ import annotations

import pytest
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet
from sahab.components.onprem.from_config import access_for

ED = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAF2THcYyCMSVaAGtZQ04/xZZyQAtsyoxhmsoyTFHu6W"
ECDSA = ("ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEmKSENjQEezOmxkZMy7opKgwFB9nkt5"
         "YRrYMjNuG5N87uRgg6CLrbo5wAdT/y6v0mKV9U2nrsVOP2A=")


def fleet(*keys):
    hosts = [{"name": f"n{i}", "address": f"10.1.0.{10 + i}", "port": 22 if i == 1 else 2222, "cpus": 8,
              "memory_gib": 32, **({"ssh_host_keys": list(k)} if k is not None else {})}
             for i, k in enumerate(keys, 1)]
    return {"environment": "smb", "sites": [{"name": "office", "emirate": "dubai", "city": "Dubai", "hosts": hosts}],
            "clusters": [{"name": "office", "kind": "onprem", "site": "office", "control_plane_hosts": ["n1"]}]}


def test_recorded_keys_become_the_runners_known_hosts():
    parsed = parse_fleet(fleet([ED, ECDSA], [ED]))
    access = access_for(parsed.sites[0], parsed.clusters[0])
    assert access.known_hosts.splitlines() == [f"10.1.0.11 {ED}", f"10.1.0.11 {ECDSA}", f"[10.1.0.12]:2222 {ED}"]
    unrecorded = parse_fleet(fleet(None, None))
    assert access_for(unrecorded.sites[0], unrecorded.clusters[0]).known_hosts is None  # the operator's known_hosts


def test_keys_are_recorded_for_every_host_of_a_site_or_none():
    with pytest.raises(ConfigError, match=r"sites\[0\]\.hosts\[1\]\.ssh_host_keys"):
        parse_fleet(fleet([ED], None))


@pytest.mark.parametrize("key", ["ssh-dss AAAAB3NzaC1kc3MAAACBAP", "ssh-ed25519", f"{ED}\n10.0.0.1 {ED}",
                                 "ssh-ed25519 AAAA C3Nz"])
def test_a_key_is_one_known_hosts_entry_of_a_known_type(key):
    with pytest.raises(ConfigError, match="ssh_host_keys"):
        parse_fleet(fleet([key]))


@pytest.mark.parametrize("accept_new", [False, True])
def test_doctor_and_init_verify_host_keys_as_the_runner_does(tmp_path, accept_new):
    """`ssh -G` (what ssh would do, no connection) over SshTarget's argv: the given files alone, never the global
    ones nor a KnownHostsCommand; the same options as the runner's inventory, from its one definition."""
    import shlex
    import subprocess

    from sahab.components.onprem import runner

    from sahab.starter.ssh import SshTarget

    files = (tmp_path / "known hosts", tmp_path / "second")
    argv = SshTarget("10.1.0.11", 2222, known_hosts=files, accept_new=accept_new).argv()
    effective = subprocess.run(["ssh", "-G", *argv[1:argv.index("--")], "-F", "/dev/null", "10.1.0.11"],
                               capture_output=True, text=True, check=True).stdout.splitlines()
    settings = dict(line.split(" ", 1) for line in effective)
    assert settings["stricthostkeychecking"] == ("accept-new" if accept_new else "true")
    assert settings["userknownhostsfile"] == " ".join(str(f) for f in files)
    assert settings["globalknownhostsfile"] == "/dev/null"
    assert "knownhostscommand" not in settings and settings["updatehostkeys"] == "false"  # `-G` omits "none"
    assert settings["verifyhostkeydns"] == "false"
    options = [argv[i + 1] for i, a in enumerate(argv) if a == "-o"]
    assert "KnownHostsCommand=none" in options
    shared = runner.host_key_options([str(f) for f in files], accept_new=accept_new)
    assert [o for o in options if o in shared] == shared
    inventory = runner.build_inventory([runner.Host("a", "10.0.0.1", "cpu_nodes")], str(files[0]))
    given = shlex.split(inventory["all"]["vars"]["ansible_ssh_args"])[1::2]
    assert given[:6] == runner.host_key_options([str(files[0])])

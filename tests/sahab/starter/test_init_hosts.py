"""`sahab init` against real Debian 12 hosts over SSH: the stack it writes, what it refuses, hostile answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from sahab.components.fleet_config import parse_fleet

from tests.sahab.starter.conftest import SPARE_DISK_ID, install_lsblk, sahab

pytestmark = pytest.mark.hosts
MIRROR = "registry.office.example.ae:5000"


def _init(site: dict, project: Path, *hosts, extra=(), stdin: str = "", known: bool = False):
    args = ["init", "office", "--program", str(project), "--identity", str(site["key"]), "--user", "sahab"]
    for host in hosts:
        args += ["--host", f"{host.address}:{host.port}"]
    env = {}
    if known:  # the operator's own known_hosts already holds the keys: point ssh's home at a copy
        pass
    return sahab(*args, *extra, stdin=stdin, env=env)


def _accepting(site, project, *hosts, extra=()):
    return _init(site, project, *hosts, extra=("--accept-new-host-keys", "--non-interactive", "--emirate",
                                               "sharjah", "--registry-mirror", MIRROR, *extra))


def test_probed_hosts_give_a_stack_that_plans_ready_and_checks_clean(site, project):
    smb1, smb2, _ = site["hosts"]
    done = _accepting(site, project, smb1, smb2)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "readiness: ready" in done.stdout and "policy: passed" in done.stdout
    text = (project / "stacks" / "Pulumi.office.yaml").read_text()
    fleet = parse_fleet(yaml.safe_load(text)["config"]["sahab:fleet"])
    hosts = fleet.sites[0].hosts
    assert [(h.name, h.address, h.port) for h in hosts] == [("smb1", smb1.address, smb1.port),
                                                            ("smb2", smb2.address, smb2.port)]
    meminfo = Path("/proc/meminfo").read_text().split()
    assert hosts[0].cpus == os.cpu_count()
    assert hosts[0].memory_gib == int(meminfo[meminfo.index("MemTotal:") + 1]) // (1 << 20)
    assert hosts[0].data_disk == f"/dev/disk/by-id/{SPARE_DISK_ID}"
    assert hosts[0].ssh_host_keys == (smb1.host_public_key,)
    assert fleet.clusters[0].control_plane_hosts == ("smb1",)
    assert fleet.clusters[0].schedule_on_control_plane is True
    assert [p.hosts for p in fleet.node_pools] == [("smb1", "smb2")]
    assert "# " in text.splitlines()[0] and "LUKS2" in text  # choices carry their reasons
    assert "pulumi up -s office --policy-pack policies" in done.stdout

    # Same hosts, same stack, byte for byte; and the recorded keys are trusted without --accept-new-host-keys.
    again = _init(site, project, smb1, smb2, extra=("--non-interactive", "--emirate", "sharjah", "--force",
                                                           "--registry-mirror", MIRROR))
    assert again.returncode == 0, again.stdout + again.stderr
    assert (project / "stacks" / "Pulumi.office.yaml").read_text() == text
    assert "unchanged" in again.stdout


def test_refusals_are_one_line_each_and_write_nothing(site, project):
    smb1, _, smb3 = site["hosts"]
    # Unknown host keys and no --accept-new-host-keys; a port where nothing listens.
    done = _init(site, project, smb1, extra=("--non-interactive", "--emirate", "dubai"))
    assert done.returncode == 2
    assert "not on record" in done.stderr and "--accept-new-host-keys" in done.stderr
    closed = _accepting(site, project, smb1, type("H", (), {"address": "127.0.0.1", "port": 9})())
    assert closed.returncode == 2 and "host 127.0.0.1:9: cannot reach it over SSH" in closed.stderr
    # smb3 has no spare disk; a host given twice; no file either time.
    nodisk = _accepting(site, project, smb1, smb3)
    errors = [ln for ln in nodisk.stderr.splitlines() if ln.startswith("error:")]
    assert nodisk.returncode == 2 and len(errors) == 1, nodisk.stderr
    assert "host smb3" in errors[0] and "no unused disk" in errors[0] and "vda" in errors[0]
    assert not (project / "stacks" / "Pulumi.office.yaml").exists()
    assert "Traceback" not in done.stderr + closed.stderr + nodisk.stderr


def test_an_existing_stack_is_kept_unless_forced(site, project):
    stack = project / "stacks" / "Pulumi.office.yaml"
    stack.write_text("config: {}\n")
    done = _accepting(site, project, site["hosts"][0])
    assert done.returncode == 2 and "already exists" in done.stderr and "--force" in done.stderr
    assert stack.read_text() == "config: {}\n"


@pytest.fixture()
def restore_smb3(site):
    host = site["hosts"][2]
    yield host
    for path in ("/usr/local/bin/lsblk", "/usr/local/bin/uname"):
        if os.path.lexists(host.path(path)):
            host.path(path).unlink()
    if not os.path.lexists(host.path("/etc/os-release")):
        host.path("/etc/os-release").symlink_to("../usr/lib/os-release")
    saved = host.path("/usr/lib/os-release.saved")
    if saved.exists():
        saved.rename(host.path("/usr/lib/os-release"))


@pytest.mark.parametrize("lsblk", ["lsblk: unknown column: MOUNTPOINT\n", '{"blockdevices": [{"name": 7}]}',
                                   '{"blockdevices": [{"type": "disk", "path": "/dev/sdz; rm -rf /", "size": "x"}]}',
                                   "\x00\xff" * 40])
def test_odd_lsblk_answers_are_refused_not_crashed(site, project, restore_smb3, lsblk):
    install_lsblk(restore_smb3, lsblk, "garbage line\n")
    done = _accepting(site, project, restore_smb3)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "no unused disk" in done.stderr


def test_missing_os_release(site, project, restore_smb3):
    host = restore_smb3
    host.path("/etc/os-release").unlink()  # os-release(5): /usr/lib/os-release is the fallback
    done = _accepting(site, project, host)
    assert "Debian GNU/Linux 12" in done.stdout, done.stdout + done.stderr
    host.path("/usr/lib/os-release").rename(host.path("/usr/lib/os-release.saved"))
    done = _accepting(site, project, host)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cannot tell its OS" in done.stderr and "Ubuntu 24.04" in done.stderr


def test_host_that_hangs_up_halfway(site, project, restore_smb3):
    host = restore_smb3
    tool = host.path("/usr/local/bin/uname")  # the probe's fourth section: its login session is killed there
    tool.write_text("#!/bin/sh\nkill -9 $(ps -o ppid= -p $PPID)\n")
    tool.chmod(0o755)
    done = _accepting(site, project, host)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "closed before the probe finished" in done.stderr

"""The test hosts: reachable over SSH with host key checking, kernel read-only, nothing left behind."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools import testhost

pytestmark = [pytest.mark.hosts, pytest.mark.timeout(120)]


def _ssh(
    host: testhost.TestHost, key, known_hosts_file, command: str, user: str = "root"
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "ssh",
            "-i",
            str(key),
            "-p",
            str(host.port),
            "-o",
            f"UserKnownHostsFile={known_hosts_file}",
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            "BatchMode=yes",
            f"{user}@{host.address}",
            command,
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_host_is_debian_12_over_ssh_with_a_read_only_kernel(base_rootfs, client_key, tmp_path):
    factory_dir = tmp_path / "hosts"
    host = testhost.TestHost("probe-1", 9, factory_dir / "probe-1")
    try:
        host.create(base_rootfs, client_key[1])
        host.start()
        known_hosts = tmp_path / "known_hosts"
        known_hosts.write_text(host.known_hosts_line + "\n")

        result = _ssh(
            host,
            client_key[0],
            known_hosts,
            ". /etc/os-release; echo $VERSION_CODENAME; hostname; python3 --version",
        )
        assert result.returncode == 0, result.stderr
        codename, hostname, python = result.stdout.split("\n")[:3]
        assert (codename, hostname) == ("bookworm", "probe-1")
        assert python.startswith("Python 3.11")

        # The site's Ansible account logs in with the key and has passwordless sudo.
        result = _ssh(host, client_key[0], known_hosts, "id -un; sudo -n id -un", user=testhost.SUDO_USER)
        assert result.stdout.split() == [testhost.SUDO_USER, "root"], result.stderr

        # Nothing inside a host may change the test machine's kernel.
        before = Path("/proc/sys/net/ipv4/ip_forward").read_text()
        result = _ssh(host, client_key[0], known_hosts, "echo 1 > /proc/sys/net/ipv4/ip_forward")
        assert result.returncode != 0
        assert Path("/proc/sys/net/ipv4/ip_forward").read_text() == before

        # A host that presents another key is refused (the driver relies on this).
        known_hosts.write_text(f"[{host.address}]:{host.port} {client_key[1]}\n")
        assert _ssh(host, client_key[0], known_hosts, "true").returncode == 255

        assert host.processes(), "sshd runs inside the host"
    finally:
        host.destroy()
    assert host.processes() == []
    assert testhost.mounts_under(factory_dir) == []
    assert not host.directory.exists()


def test_tear_down_kills_sessions_and_removes_mounts(base_rootfs, client_key, tmp_path):
    host = testhost.TestHost("probe-2", 10, tmp_path / "probe-2")
    try:
        host.create(base_rootfs, client_key[1])
        host.start()
        known_hosts = tmp_path / "known_hosts"
        known_hosts.write_text(host.known_hosts_line + "\n")
        # A process left running inside the host (a stuck task, say) must not survive tear-down.
        result = _ssh(host, client_key[0], known_hosts, "nohup sleep 600 >/dev/null 2>&1 & echo started")
        assert "started" in result.stdout
        assert len(host.processes()) >= 2
    finally:
        host.destroy()
    assert host.processes() == []
    assert testhost.mounts_under(tmp_path) == []

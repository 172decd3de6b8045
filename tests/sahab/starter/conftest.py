"""Real Debian 12 test hosts for `sahab init` and `sahab doctor`, shared by every test of this folder.

Three hosts start once per session (about 2 s each once the cached base tree exists). A chroot cannot own a
block device, so `disk_host` carries what a server with one spare disk shows: an `lsblk` answering as util-linux
does for a root disk and a blank 64 GB disk (output shape from util-linux 2.38, Debian 12's), the disk's
/dev/disk/by-id link and a sparse file at its /dev path, which `blkid -p` probes and finds blank (exit 2). Everything
else the probe reads is the host's own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.hosts.conftest import HostFactory
from tools import testhost

ROOT = Path(__file__).resolve().parents[3]
SPARE_DISK_ID = "ata-SAHAB_TEST_DISK_64G_S4EVNX0T100001"
SPARE_DISK_BYTES = 64_000_000_000


def lsblk_json(extra: list[dict] | None = None) -> str:
    devices = [{"name": "vda", "path": "/dev/vda", "type": "disk", "size": 274877906944, "ro": False, "rm": False,
                "fstype": "ext4", "mountpoint": "/", "model": None, "serial": None}, *(extra or [])]
    return json.dumps({"blockdevices": devices}, indent=3)


def install_lsblk(host: testhost.TestHost, json_text: str, listing: str) -> None:
    """A stand-in `lsblk` (first on the probe's PATH) answering `-J ...` with `json_text` and `-dnr ...` with
    `listing`."""
    tool = host.path("/usr/local/bin/lsblk")
    tool.parent.mkdir(parents=True, exist_ok=True)
    (host.path("/usr/local/share")).mkdir(parents=True, exist_ok=True)
    host.path("/usr/local/share/lsblk.json").write_text(json_text)
    host.path("/usr/local/share/lsblk.list").write_text(listing)
    tool.write_text('#!/bin/sh\ncase "$*" in *-J*) cat /usr/local/share/lsblk.json;; '
                    '*) cat /usr/local/share/lsblk.list;; esac\n')
    tool.chmod(0o755)


def give_spare_disk(host: testhost.TestHost) -> None:
    spare = {"name": "sdb", "path": "/dev/sdb", "type": "disk", "size": SPARE_DISK_BYTES, "ro": False, "rm": False,
             "fstype": None, "mountpoint": None, "model": "SAHAB TEST DISK", "serial": "S4EVNX0T100001"}
    install_lsblk(host, lsblk_json([spare]), "/dev/vda disk\n/dev/sdb disk\n")
    with open(host.path("/dev/sdb"), "wb") as disk:
        disk.truncate(SPARE_DISK_BYTES)  # sparse: costs no space
    by_id = host.path("/dev/disk/by-id")
    by_id.mkdir(parents=True, exist_ok=True)
    link = by_id / SPARE_DISK_ID
    if not os.path.lexists(link):
        link.symlink_to("../../sdb")


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """Two hosts with a spare disk each (the site), one without (for the refusals), the client key, and the
    hosts' known_hosts lines."""
    reason = testhost.unavailable_reason()
    if reason:
        pytest.skip(reason)
    try:
        lower = testhost.base_rootfs()
    except testhost.HostUnavailable as exc:
        pytest.skip(f"cannot build the Debian 12 base image: {exc}")
    key, public = testhost.generate_client_key(tmp_path_factory.mktemp("ssh"))
    factory = HostFactory(lower, public)
    try:
        hosts = [factory(f"smb{i}", 40 + i) for i in (1, 2, 3)]
        for host in hosts[:2]:
            give_spare_disk(host)
        yield {"hosts": hosts, "key": key, "known_hosts": factory.known_hosts()}
    finally:
        factory.destroy_all()


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A project folder running this checkout's program with its virtualenv; init writes its stacks here."""
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "stacks" / "__main__.py", tmp_path / "stacks" / "__main__.py")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    return tmp_path


def sahab(*args: str, cwd: Path | None = None, env: dict | None = None, stdin: str = "",
          timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-m", "sahab", *args], cwd=cwd or ROOT,
                          env={**os.environ, **(env or {})}, input=stdin, capture_output=True, text=True,
                          timeout=timeout)

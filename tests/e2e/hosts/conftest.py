"""Fixtures that build real Debian 12 hosts (see testhost.py) and always tear them down."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools import testhost


@pytest.fixture(scope="session")
def base_rootfs() -> Path:
    """The cached Debian 12 tree hosts overlay (built by debootstrap once per machine)."""
    reason = testhost.unavailable_reason()
    if reason:
        pytest.skip(reason)
    try:
        return testhost.base_rootfs()
    except testhost.HostUnavailable as exc:
        pytest.skip(f"cannot build the Debian 12 base image: {exc}")


@pytest.fixture(scope="session")
def client_key(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The test client's SSH key pair (private key path, public key line)."""
    return testhost.generate_client_key(tmp_path_factory.mktemp("ssh"))


class HostFactory:
    """Creates and starts hosts; ``destroy_all`` kills their processes and removes them, whatever happened."""

    def __init__(self, lower: Path, public_key: str) -> None:
        self.lower = lower
        self.public_key = public_key
        self.workdir = Path(tempfile.mkdtemp(prefix="sahab-hosts-"))
        self.hosts: list[testhost.TestHost] = []

    def __call__(self, name: str, index: int, start: bool = True) -> testhost.TestHost:
        host = testhost.TestHost(name, index, self.workdir / name)
        self.hosts.append(host)
        host.create(self.lower, self.public_key)
        if start:
            host.start()
        return host

    def known_hosts(self) -> str:
        return "\n".join(h.known_hosts_line for h in self.hosts if h.port)

    def destroy_all(self) -> None:
        errors = []
        for host in self.hosts:
            try:
                host.destroy()
            except RuntimeError as exc:
                errors.append(str(exc))
        if not errors:
            shutil.rmtree(self.workdir, ignore_errors=True)
        assert not errors, errors


@pytest.fixture(scope="module")
def host_factory(base_rootfs: Path, client_key: tuple[Path, str]) -> Iterator[HostFactory]:
    factory = HostFactory(base_rootfs, client_key[1])
    try:
        yield factory
    finally:
        factory.destroy_all()

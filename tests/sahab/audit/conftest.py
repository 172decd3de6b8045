"""Every audit test runs against moto with test credentials: no call can reach a real AWS endpoint."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def fake_aws_environment(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    # No config or credentials files of whoever runs the tests.
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    # moto otherwise seeds every region with hundreds of public AMI snapshots.
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    # A moto server on loopback is reached directly, never through a proxy from the environment.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def aws():
    from moto import mock_aws

    with mock_aws():
        yield


@pytest.fixture
def moto_server():
    """A moto server on 127.0.0.1 (an ephemeral port), emptied after the test."""
    import urllib.request

    from moto.moto_server.threaded_moto_server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    try:
        yield url
    finally:
        urllib.request.urlopen(urllib.request.Request(f"{url}/moto-api/reset", method="POST"), timeout=10)
        server.stop()

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
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def aws():
    from moto import mock_aws

    with mock_aws():
        yield

"""A program Sahab cannot start because of what it would hand the interpreter (the environment it inherits) is
told so, not sent to recreate a virtualenv that is fine."""

from __future__ import annotations

import os

import pytest

from sahab.engine import plan
from sahab.errors import ProgramError


def test_an_environment_larger_than_exec_takes_is_named_not_blamed_on_the_virtualenv(tmp_path, monkeypatch):
    (tmp_path / "Pulumi.yaml").write_text("name: big-env\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text("import pulumi\n")
    # Each variable under the one-variable cap (128 KiB), together past what execve takes (ARG_MAX).
    for i in range(os.sysconf("SC_ARG_MAX") // (100 * 1024) + 2):
        monkeypatch.setenv(f"SAHAB_TEST_BULK_{i}", "x" * 100 * 1024)
    with pytest.raises(ProgramError) as caught:
        plan(tmp_path, "dev", preview=True)
    message = str(caught.value)
    assert "its environment and arguments" in message and "(execve: E2BIG)" in message
    assert "virtualenv" not in message

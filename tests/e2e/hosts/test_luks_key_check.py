"""Before a LUKS key file is (re)written, the key is checked against the volume's header: the role's own command,
rendered from its tasks, run by the real cryptsetup inside a test host against a LUKS2 image made with one key.
(The full volume path, open and mount, needs device-mapper; tests/e2e/hosts/test_converge.py runs it where the
kernel offers it.) A few seconds."""

from __future__ import annotations

import subprocess

import pytest
import yaml
from sahab.components.onprem.runner import ANSIBLE_DIR

from tests.components.onprem.test_kubeadm_rendering import render

pytestmark = [pytest.mark.hosts, pytest.mark.timeout(300)]
VOLUME_TASKS = ANSIBLE_DIR / "roles/sahab_data_volumes/tasks/volume.yml"


def _in_host(host, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["nsenter", "--target", str(host.process.pid), "--mount", "--uts", "--root", "--wd",
                           *argv], input=stdin, capture_output=True, text=True, timeout=120)


def _check_argv(device: str, key_file: str) -> list[str]:
    """The argv of the role's 'Check the key opens the volume's LUKS header' task."""
    task = next(t for t in yaml.safe_load(VOLUME_TASKS.read_text())
                if t["name"] == "Check the key opens the volume's LUKS header")
    argv = task["ansible.builtin.command"]["argv"]
    return [render(a, sahab_data_volumes_key_file=key_file, sahab_data_volumes_path=device) for a in argv]


def test_a_key_that_does_not_open_the_header_is_caught_before_it_is_written(host_factory):
    host = host_factory("luks-1", 40)
    installed = _in_host(host, "apt-get", "install", "-q", "-y", "--no-download", "cryptsetup-bin")
    assert installed.returncode == 0, installed.stderr[-1000:]
    image, right, wrong = "/root/disk.img", "/root/right.key.candidate", "/root/wrong.key.candidate"
    host.path(right).write_text("the-key-sahab-holds-for-this-volume-0123456789")
    host.path(wrong).write_text("a-key-from-another-site-or-a-rotated-secret-xyz")
    assert _in_host(host, "truncate", "-s", "20M", image).returncode == 0
    formatted = _in_host(host, "cryptsetup", "luksFormat", "--batch-mode", "--type=luks2", "--pbkdf", "pbkdf2",
                         "--pbkdf-force-iterations", "1000", f"--key-file={right}", image)
    assert formatted.returncode == 0, formatted.stderr
    assert _in_host(host, *_check_argv(image, right.removesuffix(".candidate"))).returncode == 0
    refused = _in_host(host, *_check_argv(image, wrong.removesuffix(".candidate")))
    assert refused.returncode != 0 and "No key available" in refused.stderr

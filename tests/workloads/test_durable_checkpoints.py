"""Checkpoints that outlive a node: sharded torch.distributed.checkpoint saves to S3 (a moto server on
loopback, reached as a custom S3-compatible endpoint, as an on-prem site's in-country store is), a worker killed
for good, and a fresh run elsewhere that resumes from the bucket."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from sahab.workloads.train import checkpoint
from sahab.workloads.train.storage import open_store

from tests.workloads.test_train_torchrun import TINY, training_workers
from tests.workloads.workload_helpers import ROOT, sahab_env
from tools.ports import free_port

pytestmark = [pytest.mark.slow, pytest.mark.moto, pytest.mark.timeout(400)]

BUCKET = "sahab-checkpoints"


@pytest.fixture
def s3_env(monkeypatch):
    """A moto S3 server on loopback and the environment a pod would have (credentials only from it)."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    env = {
        "AWS_ENDPOINT_URL_S3": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "me-central-1",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    import boto3

    boto3.client("s3").create_bucket(Bucket=BUCKET,
                                     CreateBucketConfiguration={"LocationConstraint": "me-central-1"})
    yield env
    server.stop()


def _train(uri: str, env: dict, tmpdir, steps: int, *extra: str, **popen) -> subprocess.Popen:
    tmpdir.mkdir(exist_ok=True)
    environment = {k: v for k, v in (sahab_env() | env).items() if v is not None}  # None: unset it
    return subprocess.Popen(
        [sys.executable, "-m", "sahab", "train", "--nproc", "2", "--steps", str(steps), "--checkpoint-every", "5",
         "--checkpoint-dir", uri, "--max-restarts", "0", "--skip-validation", "--format", "json", *TINY, *extra],
        # MFU needs a peak; measuring one (2 s of every core) is not what these tests are about
        cwd=tmpdir, env=environment | {"TMPDIR": str(tmpdir), "SAHAB_CPU_FLAGS": "avx2 fma",
                                       "SAHAB_PEAK_FLOPS": "1e11"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, **popen,
    )  # fmt: skip


def _finish(proc: subprocess.Popen, timeout: float) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)


@pytest.mark.torchrun
def test_a_fresh_run_on_another_node_resumes_from_the_bucket_after_a_worker_is_killed(s3_env, tmp_path):
    uri = f"s3://{BUCKET}/runs/gpt-tiny"
    store = open_store(uri)
    first = _train(uri, s3_env, tmp_path / "node-a", steps=400)
    deadline = time.monotonic() + 120
    while not checkpoint.complete_steps(store) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    saved_before_kill = checkpoint.complete_steps(store)
    assert saved_before_kill, "no complete checkpoint reached the bucket"
    workers = training_workers(first.pid)
    assert len(workers) == 2
    os.kill(workers[-1], signal.SIGKILL)  # the node is lost: no restarts left, the run fails
    _, err = _finish(first, timeout=120)
    assert first.returncode != 0, err[-2000:]

    # every checkpoint the bucket shows is whole: each file its manifest names is there
    keys = set(store.list(""))
    for step in checkpoint.complete_steps(store):
        manifest = checkpoint.read_manifest(store, step)
        assert manifest["files"] and set(manifest["files"]) <= keys
        assert f"step-{step:08d}/.metadata" in manifest["files"]
        assert sum(k.endswith(".distcp") for k in manifest["files"]) == 2  # one shard per rank

    # another node: a fresh working and temporary directory, nothing on disk but the bucket's address; the
    # store is an in-country S3-compatible one, named on the command line this time, not in the environment
    endpoint = s3_env["AWS_ENDPOINT_URL_S3"]
    second = _train(uri, s3_env | {"AWS_ENDPOINT_URL_S3": None}, tmp_path / "node-b",
                    max(saved_before_kill) + 10, "--s3-endpoint", endpoint)
    out, err = _finish(second, timeout=180)
    assert second.returncode == 0, err[-2000:]
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["resumed_from"] >= max(saved_before_kill) > 0
    assert summary["steps"] == max(saved_before_kill) + 10
    assert checkpoint.complete_steps(store)[-1] == summary["steps"]
    assert len(checkpoint.complete_steps(store)) == 2  # older ones pruned


AZURITE = ROOT / ".venv" / "azurite" / "node_modules" / ".bin" / "azurite-blob"
# Azurite's documented development account (public, emulator only)
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


@pytest.fixture
def azure_env(monkeypatch):
    """Azurite's blob service on loopback (installed by `make test`), in memory."""
    if not AZURITE.exists():
        pytest.skip("Azurite is not installed (make azurite; needs npm)")
    port = free_port()
    server = subprocess.Popen([str(AZURITE), "--blobHost", "127.0.0.1", "--blobPort", str(port),
                               "--inMemoryPersistence", "--skipApiVersionCheck", "--silent"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    connection = (f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={AZURITE_KEY};"
                  f"BlobEndpoint=http://127.0.0.1:{port}/devstoreaccount1;")
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", connection)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "Azurite did not start"
                time.sleep(0.2)
        from azure.storage.blob import ContainerClient

        ContainerClient.from_connection_string(connection, "checkpoints").create_container()
        yield {"AZURE_STORAGE_CONNECTION_STRING": connection}
    finally:
        server.kill()
        server.wait()


@pytest.mark.torchrun
def test_az_checkpoints_resume_a_fresh_run_from_blob_storage(azure_env, tmp_path):
    uri = "az://checkpoints/runs/gpt-tiny"
    first = _train(uri, azure_env, tmp_path / "node-a", steps=12)
    out, err = _finish(first, timeout=180)
    assert first.returncode == 0, err[-2000:]
    assert json.loads(out.strip().splitlines()[-1])["resumed_from"] == 0
    store = open_store(uri)
    assert checkpoint.complete_steps(store) == [10, 12]
    assert all(k.startswith(("step-00000010/", "step-00000012/", "manifests/")) for k in store.list(""))

    second = _train(uri, azure_env, tmp_path / "node-b", steps=17)
    out, err = _finish(second, timeout=180)
    assert second.returncode == 0, err[-2000:]
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["resumed_from"] == 12 and summary["steps"] == 17


def test_a_bucket_that_cannot_be_reached_is_one_error_before_any_worker(tmp_path):
    """No credentials, no endpoint that answers: exit 2 naming the location, not four restarts of workers. (No
    torchrun starts, so it need not run alone.)"""
    port = free_port()  # nothing listens here
    result = subprocess.run(
        [sys.executable, "-m", "sahab", "train", "--checkpoint-dir", f"s3://{BUCKET}/x", "--skip-validation",
         *TINY],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env=sahab_env() | {"AWS_ENDPOINT_URL_S3": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "x",
                           "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "me-central-1",
                           "AWS_MAX_ATTEMPTS": "1"},
    )  # fmt: skip
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --checkpoint-dir s3://{BUCKET}/x: cannot read")

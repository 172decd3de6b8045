"""Checkpoints are verified before they are read: whoever can write the store but does not hold the key cannot make
a training pod unpickle anything.

Each tampering below is refused with one error line before torch.distributed.checkpoint opens a file, and the
poisoned `.metadata` (or shard) whose unpickling would create a marker file never does; the control test shows the
same poison does run when DCP reads it unverified.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path

import pytest
import torch
import torch.distributed.checkpoint as dcp
from sahab.workloads.train import checkpoint, integrity
from sahab.workloads.train.integrity import CheckpointRefused

from tools.ports import free_port

KEY = "k" * 40 + "-the-team-key-from-its-pulumi-secret"
OTHER_KEY = "o" * 40 + "-a-key-some-store-writer-made-up"
STEP = 10


class Poison:
    """Unpickling this creates the marker file: what a store writer would put in `.metadata` to run code."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(integrity.KEY_ENV, KEY)
    return KEY.encode()


@pytest.fixture
def saved(tmp_path, key):
    """A real checkpoint of step 10 (and the marker path a poison would create)."""
    store = tmp_path / "store"
    saver = checkpoint.Checkpointer(str(store), is_main=True, is_node_main=True)
    saver.save(STEP, {"w": torch.arange(4.0), "extra": {"lr": 0.1}}, {"first_loss": 2.5})
    return store, tmp_path / "pwned"


def _manifest_path(store: Path, step: int = STEP) -> Path:
    return store / checkpoint.manifest_key(step)


def _rewrite(store: Path, change, resign_with: str | None = None, step: int = STEP) -> None:
    manifest = json.loads(_manifest_path(store, step).read_text())
    change(manifest)
    if resign_with:
        manifest = integrity.sign(manifest, resign_with.encode())
    _manifest_path(store, step).write_text(json.dumps(manifest))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def poison_metadata(store, marker):
    (store / "step-00000010" / ".metadata").write_bytes(pickle.dumps(Poison(marker)))


def poison_metadata_and_fix_its_digest(store, marker):
    poison_metadata(store, marker)
    meta = store / "step-00000010" / ".metadata"
    _rewrite(store, lambda m: m["sha256"].update({"step-00000010/.metadata": _sha(meta)}))


def poison_metadata_and_resign_with_another_key(store, marker):
    poison_metadata(store, marker)
    meta = store / "step-00000010" / ".metadata"
    _rewrite(store, lambda m: m["sha256"].update({"step-00000010/.metadata": _sha(meta)}), resign_with=OTHER_KEY)


def poison_metadata_and_drop_the_signature(store, marker):
    poison_metadata(store, marker)
    _rewrite(store, lambda m: m.pop("signature"))


def poison_metadata_under_an_unsigned_old_style_manifest(store, marker):
    poison_metadata(store, marker)
    _rewrite(store, lambda m: [m.pop("signature"), m.pop("sha256")])


def poison_a_shard(store, marker):
    (store / "step-00000010" / "__0_0.distcp").write_bytes(pickle.dumps(Poison(marker)))


def flip_one_byte_of_a_shard(store, marker):
    shard = store / "step-00000010" / "__0_0.distcp"
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0x01
    shard.write_bytes(bytes(data))


def add_an_extra_file(store, marker):
    (store / "step-00000010" / "__7_0.distcp").write_bytes(pickle.dumps(Poison(marker)))


def delete_a_shard(store, marker):
    (store / "step-00000010" / "__0_0.distcp").unlink()


def replay_the_manifest_as_another_step(store, marker):
    """A genuine signed manifest of step 10, offered as step 20 (a later step the run would trust more)."""
    (store / "step-00000020").mkdir()
    for f in (store / "step-00000010").iterdir():
        (store / "step-00000020" / f.name).write_bytes(f.read_bytes())
    _manifest_path(store, 20).write_bytes(_manifest_path(store).read_bytes())


def garble_the_manifest(store, marker):
    _manifest_path(store).write_bytes(b"\x80not json")


def change_the_signed_meta(store, marker):
    _rewrite(store, lambda m: m.update(first_loss=0.01))


TAMPERINGS = {
    poison_metadata: "differs from the signed manifest (SHA-256)",
    poison_metadata_and_fix_its_digest: "its manifest was altered after it was signed",
    poison_metadata_and_resign_with_another_key: "it is signed with another key",
    poison_metadata_and_drop_the_signature: "it is not signed",
    poison_metadata_under_an_unsigned_old_style_manifest: "it is not signed",
    poison_a_shard: "step-00000010/__0_0.distcp differs from the signed manifest",
    flip_one_byte_of_a_shard: "step-00000010/__0_0.distcp differs from the signed manifest",
    add_an_extra_file: "step-00000010/__7_0.distcp is in the store but not in the signed manifest",
    delete_a_shard: "step-00000010/__0_0.distcp of the signed manifest is missing",
    replay_the_manifest_as_another_step: "its signed manifest is for step 10",
    garble_the_manifest: "its manifest is not JSON",
    change_the_signed_meta: "its manifest was altered after it was signed",
}


def test_a_checkpoint_round_trips_with_a_signed_manifest_over_every_file(saved, key):
    store, _ = saved
    manifest = json.loads(_manifest_path(store).read_text())
    assert manifest["files"] == ["step-00000010/.metadata", "step-00000010/__0_0.distcp"]
    assert manifest["sha256"] == {f: _sha(store / f) for f in manifest["files"]}
    assert manifest["signature"]["scheme"] == "hmac-sha256"
    assert manifest["signature"]["key_id"] == integrity.key_id(key) and KEY not in json.dumps(manifest)
    state = {"w": torch.zeros(4), "extra": {"lr": 0.0}}
    loaded = checkpoint.Checkpointer(str(store), True, True).load(STEP, state)
    assert state["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and state["extra"]["lr"] == 0.1
    assert loaded["first_loss"] == 2.5
    assert not list(Path(checkpoint.Checkpointer(str(store), True, True).staging_root).glob("load-*"))


def test_saves_and_loads_leave_nothing_in_the_nodes_temporary_folder(tmp_path, key, monkeypatch):
    """A node runs job after job: neither a save, a load nor a refused load may leave a folder behind."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    store = tmp_path / "store"
    checkpoint.Checkpointer(str(store), True, True).save(STEP, {"w": torch.arange(4.0)}, {"first_loss": 1.0})
    assert not list(scratch.iterdir())
    checkpoint.Checkpointer(str(store), True, True).load(STEP, {"w": torch.zeros(4)})
    assert not list(scratch.iterdir())
    (store / checkpoint.data_prefix(STEP) / ".metadata").write_bytes(b"changed")
    with pytest.raises(CheckpointRefused):
        checkpoint.Checkpointer(str(store), True, True).load(STEP, {"w": torch.zeros(4)})
    assert not list(scratch.iterdir())


@pytest.mark.parametrize("tamper", list(TAMPERINGS), ids=[t.__name__ for t in TAMPERINGS])
def test_a_tampered_checkpoint_is_refused_before_anything_is_unpickled(saved, tamper):
    store, marker = saved
    tamper(store, marker)
    step = 20 if tamper is replay_the_manifest_as_another_step else STEP
    with pytest.raises(CheckpointRefused) as refused:
        checkpoint.Checkpointer(str(store), True, True).load(step, {"w": torch.zeros(4), "extra": {"lr": 0.0}})
    message = str(refused.value)
    assert message.startswith(f"error: checkpoint of step {step} at {store} refused: ")
    assert TAMPERINGS[tamper] in message and "nothing of it was read" in message and "\n" not in message
    assert not marker.exists(), "the poisoned checkpoint ran code"


def test_the_poison_is_real_dcp_runs_it_when_it_reads_unverified(saved):
    """The control: the same `.metadata` read by DCP directly does run code, so the test above can fail."""
    store, marker = saved
    poison_metadata(store, marker)
    with pytest.raises(BaseException):  # noqa: B017 - DCP's CheckpointException, after unpickling the poison
        dcp.load({"w": torch.zeros(4)}, storage_reader=dcp.FileSystemReader(store / "step-00000010"), no_dist=True)
    assert marker.exists()


def test_a_run_with_another_key_refuses_the_teams_checkpoint(saved, monkeypatch):
    store, _ = saved
    monkeypatch.setenv(integrity.KEY_ENV, OTHER_KEY)
    with pytest.raises(CheckpointRefused, match="it is signed with another key"):
        checkpoint.Checkpointer(str(store), True, True).load(STEP, {"w": torch.zeros(4), "extra": {"lr": 0.0}})


def test_the_trainer_stops_with_the_one_error_line(saved, monkeypatch):
    """What a training pod does on resume: the newest checkpoint is refused, the run stops (exit 1, no traceback,
    no fresh start over a store someone tampered with)."""
    from tests.workloads.test_train_units import _trainer

    store, marker = saved
    _trainer(store.parent / "run", steps=2, every=1).train()
    poison_metadata_store = store.parent / "run"
    (poison_metadata_store / "step-00000002" / ".metadata").write_bytes(pickle.dumps(Poison(marker)))
    with pytest.raises(SystemExit) as stopped:
        _trainer(poison_metadata_store, steps=4, every=1)
    assert str(stopped.value).startswith("error: checkpoint of step 2 at ") and not marker.exists()


def test_a_short_key_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv(integrity.KEY_ENV, "too-short")
    with pytest.raises(CheckpointRefused, match=r"is 9 characters; allowed: 32 or more"):
        checkpoint.Checkpointer(str(tmp_path), True, True)


def test_a_local_run_makes_its_own_key_once_readable_only_by_its_user(monkeypatch, tmp_path):
    monkeypatch.delenv(integrity.KEY_ENV, raising=False)
    path = tmp_path / "config" / "sahab" / "checkpoint-key"
    monkeypatch.setenv(integrity.KEY_FILE_ENV, str(path))
    first = integrity.load_key()
    assert integrity.load_key() == first and len(first) == 64
    assert oct(path.stat().st_mode & 0o777) == "0o600" and oct(path.parent.stat().st_mode & 0o777) == "0o700"
    assert not [p for p in path.parent.iterdir() if p != path]


def test_an_s3_store_is_verified_the_same_way(key, tmp_path, monkeypatch):
    """The remote path: an object added under the checkpoint's prefix in the bucket is refused."""
    from moto import mock_aws

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "me-central-1")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with mock_aws():
        import boto3

        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="ckpt", CreateBucketConfiguration={"LocationConstraint": "me-central-1"})
        saver = checkpoint.Checkpointer("s3://ckpt/research/run", True, True)
        saver.save(STEP, {"w": torch.arange(4.0)}, {"first_loss": 1.0})
        state = {"w": torch.zeros(4)}
        checkpoint.Checkpointer("s3://ckpt/research/run", True, True).load(STEP, state)
        assert state["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
        marker = tmp_path / "pwned"
        s3.put_object(Bucket="ckpt", Key="research/run/step-00000010/.metadata", Body=pickle.dumps(Poison(marker)))
        with pytest.raises(CheckpointRefused, match=r"step-00000010/\.metadata differs from the signed manifest"):
            checkpoint.Checkpointer("s3://ckpt/research/run", True, True).load(STEP, {"w": torch.zeros(4)})
        assert not marker.exists()


def _two_ranks(rank: int, port: int, store: str, marker: str, results: str) -> None:
    import torch.distributed as dist

    os.environ[integrity.KEY_ENV] = KEY
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    saver = checkpoint.Checkpointer(store, is_main=rank == 0, is_node_main=rank == 0)
    saver.save(STEP, {"w": torch.arange(4.0) + rank}, {"first_loss": 1.0})
    dist.barrier()
    if rank == 0:
        (Path(store) / "step-00000010" / ".metadata").write_bytes(pickle.dumps(Poison(Path(marker))))
    dist.barrier()
    try:
        saver.load(STEP, {"w": torch.zeros(4)})
        outcome = "loaded"
    except CheckpointRefused as refused:
        outcome = str(refused)
    Path(results, f"rank{rank}").write_text(outcome)
    dist.destroy_process_group()


@pytest.mark.timeout(120)
def test_every_rank_refuses_together_and_none_waits_forever(tmp_path):
    """Only a node's first rank fetches and checks the files; the others learn its verdict and stop with it."""
    import torch.multiprocessing as mp

    port = free_port()
    marker, results = tmp_path / "pwned", tmp_path / "results"
    results.mkdir()
    mp.spawn(_two_ranks, args=(port, str(tmp_path / "store"), str(marker), str(results)), nprocs=2, join=True)
    outcomes = [(results / f"rank{r}").read_text() for r in (0, 1)]
    assert all("differs from the signed manifest" in o for o in outcomes), outcomes
    assert not marker.exists()

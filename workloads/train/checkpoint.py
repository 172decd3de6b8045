"""Sharded checkpoints (torch.distributed.checkpoint) that become visible only once complete, and are read only
once verified.

Layout at the checkpoint location (a local directory, s3://bucket/prefix or az://container/prefix):

    step-00000100/.metadata, __0_0.distcp, __1_0.distcp, ...   DCP's metadata and one shard file per rank
    manifests/step-00000100.json                               written last: the commit marker

Every rank writes its own shard with DCP (collectively) to a staging directory on its node; each node hashes
(SHA-256) and uploads its files. Only when every node has finished does rank 0 write the manifest (the files,
their digests, the step, the run's config), signed with the checkpoint key (workloads.train.integrity): a single
object PUT or an atomic rename, so a reader sees either a whole checkpoint or none. A save killed halfway leaves
shards without a manifest: never read, and removed when a newer checkpoint is pruned. Any node of a later run, even
on other machines with empty disks, resumes from the newest manifest it finds.

Reading is the other way round: the manifest's signature first, then every file fetched into the node's staging
directory and checked against its digest, and no file the manifest does not name in the store. Only a checkpoint
that passes all of it reaches DCP, which unpickles what it loads; anything else stops the run with one error
(integrity.CheckpointRefused), having unpickled nothing.
A local path must be one file system for every node of a multi-node job (one node, or a shared volume).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import torch.distributed as dist

from .integrity import (
    CheckpointRefused,
    file_problem,
    load_key,
    refusal,
    sha256_file,
    sign,
    verify_manifest,
)
from .storage import Store, open_store

MANIFESTS = "manifests"
_MANIFEST = re.compile(r"^manifests/step-(\d{8,})\.json$")  # 8 digits, more past step 99,999,999
_DATA = re.compile(r"^step-(\d{8,})/")


def data_prefix(step: int) -> str:
    return f"step-{step:08d}"


def manifest_key(step: int) -> str:
    return f"{MANIFESTS}/step-{step:08d}.json"


def complete_steps(store: Store) -> list[int]:
    """Steps whose manifest exists, oldest first."""
    return sorted(int(m.group(1)) for key in store.list(MANIFESTS + "/") if (m := _MANIFEST.match(key)))


def read_manifest(store: Store, step: int) -> dict:
    return json.loads(store.read(manifest_key(step)))


def _barrier() -> None:
    if dist.is_available() and dist.is_initialized():
        dist.barrier()


def _gathered(value) -> list:
    """`value` from every rank (a barrier too)."""
    if dist.is_available() and dist.is_initialized():
        out = [None] * dist.get_world_size()
        dist.all_gather_object(out, value)
        return out
    return [value]


class Checkpointer:
    """Save and load one run's checkpoints; every rank calls `save` and `load` (they are collective)."""

    def __init__(self, location: str, is_main: bool, is_node_main: bool, keep: int = 2):
        self.store = open_store(location)
        self.is_main = is_main
        self.is_node_main = is_node_main
        self.keep = keep
        self.key = load_key()
        run = os.environ.get("TORCHELASTIC_RUN_ID", "local")
        digest = hashlib.sha256(f"{location}|{run}".encode()).hexdigest()[:12]
        # One staging directory per node and run, the same path for every local rank of the node. The node's rank
        # (torchrun's GROUP_RANK) is in its name, so nodes that share a temporary folder (a hostPath /tmp, pods on
        # one machine) never read or remove each other's shards.
        node = os.environ.get("GROUP_RANK", "0")
        self.staging_root = Path(tempfile.gettempdir()) / f"sahab-checkpoint-{digest}-node-{node}"

    def complete_steps(self) -> list[int]:
        return complete_steps(self.store)

    def save(self, step: int, state: dict, meta: dict) -> None:
        directory = self.staging_root / data_prefix(step)
        if self.is_node_main:
            # Shards a failed earlier attempt left here (perhaps under other ranks) must not be uploaded with
            # this one.
            shutil.rmtree(directory, ignore_errors=True)
        # Every local rank writes into this directory, and DCP's writer creates it on each rank as it starts: no
        # rank may start before the clean-up is over, or it writes into a directory that is then removed.
        _barrier()
        import torch.distributed.checkpoint as dcp  # here, not above: `sahab train` only reads manifests

        dcp.save(state, storage_writer=dcp.FileSystemWriter(directory),
                 no_dist=not (dist.is_available() and dist.is_initialized()))
        digests: dict[str, str] = {}
        if self.is_node_main:
            for path in sorted(p for p in directory.iterdir() if p.is_file()):
                key = f"{data_prefix(step)}/{path.name}"
                digests[key] = sha256_file(path)  # of the bytes this node wrote, before they leave it
                self.store.upload(key, path)
            self._remove(directory)
        digests = {k: v for node in _gathered(digests) for k, v in node.items()}  # every node's shards are in place
        if self.is_main:
            stale = [key for key in self.store.list(data_prefix(step) + "/") if key not in digests]
            if stale:  # an earlier, failed attempt at this step: not part of this checkpoint
                self.store.delete(stale)
            manifest = sign({"step": step, "files": sorted(digests), "sha256": digests, **meta}, self.key)
            self.store.write(manifest_key(step), json.dumps(manifest, indent=1).encode())
            self._prune()

    def load(self, step: int, state: dict) -> dict:
        """Fill `state` (as built for `save`) from the checkpoint of `step`; returns its manifest. A checkpoint
        whose signature or files do not hold raises CheckpointRefused on every rank before DCP reads anything."""
        manifest = verify_manifest(self.store.read(manifest_key(step)), step, self.key, self.store.uri)
        directory = self.staging_root / f"load-{data_prefix(step)}"
        problem = self._fetch(step, manifest, directory) if self.is_node_main else None
        problem = next((p for p in _gathered(problem) if p), None)
        if problem:
            if self.is_node_main:
                self._remove(directory)
            raise CheckpointRefused(refusal(step, self.store.uri, problem))
        import torch.distributed.checkpoint as dcp

        dcp.load(state, storage_reader=dcp.FileSystemReader(directory),
                 no_dist=not (dist.is_available() and dist.is_initialized()))
        _barrier()
        if self.is_node_main:
            self._remove(directory)
        return manifest

    def _remove(self, directory: Path) -> None:
        """Remove a staging directory, and the node's staging root once nothing else is in it (a long-lived node
        runs many jobs: each would otherwise leave an empty folder in its temporary directory)."""
        shutil.rmtree(directory, ignore_errors=True)
        with contextlib.suppress(OSError):  # not empty: another save or load of this node is under way
            self.staging_root.rmdir()

    def _fetch(self, step: int, manifest: dict, directory: Path) -> str | None:
        """The manifest's files into this node's own directory (DCP reads those copies, never the store, so nothing
        can change them between the check and the read), and what is wrong with them, if anything."""
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True, mode=0o700)
        listed = self.store.list(data_prefix(step) + "/")
        fetched = {}
        for key in manifest["files"]:
            if key in listed:  # one that is not is reported missing by file_problem
                fetched[key] = directory / Path(key).name
                self.store.download(key, fetched[key])
        return file_problem(manifest, listed, fetched)

    def _prune(self) -> None:
        """Keep the newest `keep` complete checkpoints; drop older ones (manifest first, so a reader never
        sees a manifest without its shards) and the leftovers of saves that never completed."""
        steps = complete_steps(self.store)
        if not steps:
            return
        kept = set(steps[-self.keep:])
        for step in steps[:-self.keep]:
            self.store.delete([manifest_key(step)])
        leftovers = [key for key in self.store.list("step-")
                     if (m := _DATA.match(key)) and int(m.group(1)) not in kept and int(m.group(1)) < max(kept)]
        if leftovers:
            self.store.delete(leftovers)


def available_steps(location) -> list[int]:
    """Steps of the complete checkpoints at `location` (a path or URI), oldest first."""
    return complete_steps(open_store(str(location)))

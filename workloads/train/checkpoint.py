"""Sharded checkpoints (torch.distributed.checkpoint) that become visible only once complete.

Layout at the checkpoint location (a local directory, s3://bucket/prefix or az://container/prefix):

    step-00000100/.metadata, __0_0.distcp, __1_0.distcp, ...   DCP's metadata and one shard file per rank
    manifests/step-00000100.json                               written last: the commit marker

Every rank writes its own shard with DCP (collectively); for an object store each node writes to a local
staging directory first and uploads its files. Only when every node has finished does rank 0 write the
manifest (the files, the step, the run's config): a single object PUT or an atomic rename, so a reader sees
either a whole checkpoint or none. A save killed halfway leaves shards without a manifest: never read, and
removed when a newer checkpoint is pruned. Any node of a later run, even on other machines with empty disks,
resumes from the newest manifest it finds.
A local path must be one file system for every node of a multi-node job (one node, or a shared volume).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import torch.distributed as dist
import torch.distributed.checkpoint as dcp

from workloads.train.storage import LocalStore, Store, open_store

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


class Checkpointer:
    """Save and load one run's checkpoints; every rank calls `save` and `load` (they are collective)."""

    def __init__(self, location: str, is_main: bool, is_node_main: bool, keep: int = 2):
        self.store = open_store(location)
        self.is_main = is_main
        self.is_node_main = is_node_main
        self.keep = keep
        run = os.environ.get("TORCHELASTIC_RUN_ID", "local")
        digest = hashlib.sha256(f"{location}|{run}".encode()).hexdigest()[:12]
        # one staging directory per node and run, the same path for every local rank
        self.staging_root = Path(tempfile.gettempdir()) / f"sahab-checkpoint-{digest}"

    @property
    def _local(self) -> LocalStore | None:
        return self.store if isinstance(self.store, LocalStore) else None

    def complete_steps(self) -> list[int]:
        return complete_steps(self.store)

    def save(self, step: int, state: dict, meta: dict) -> None:
        directory = (self._local.root if self._local else self.staging_root) / data_prefix(step)
        if not self._local and self.is_node_main:
            # Shards a failed earlier attempt left here (perhaps under other ranks) must not be uploaded with
            # this one. Every rank plans the save collectively before writing, so this ends before any write.
            shutil.rmtree(directory, ignore_errors=True)
        dcp.save(state, storage_writer=dcp.FileSystemWriter(directory),
                 no_dist=not (dist.is_available() and dist.is_initialized()))
        if not self._local and self.is_node_main:
            for path in sorted(p for p in directory.iterdir() if p.is_file()):
                self.store.upload(f"{data_prefix(step)}/{path.name}", path)
            shutil.rmtree(directory, ignore_errors=True)
        _barrier()  # every node's shards are in place before the commit
        if self.is_main:
            files = self.store.list(data_prefix(step) + "/")
            manifest = {"step": step, "files": files, **meta}
            self.store.write(manifest_key(step), json.dumps(manifest, indent=1).encode())
            self._prune()

    def load(self, step: int, state: dict) -> dict:
        """Fill `state` (as built for `save`) from the checkpoint of `step`; returns its manifest."""
        manifest = read_manifest(self.store, step)
        if self._local:
            directory = self._local.root / data_prefix(step)
        else:
            directory = self.staging_root / f"load-{data_prefix(step)}"
            if self.is_node_main:
                for key in manifest["files"]:
                    self.store.download(key, directory / Path(key).name)
            _barrier()
        dcp.load(state, storage_reader=dcp.FileSystemReader(directory),
                 no_dist=not (dist.is_available() and dist.is_initialized()))
        if not self._local:
            _barrier()
            if self.is_node_main:
                shutil.rmtree(directory, ignore_errors=True)
        return manifest

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

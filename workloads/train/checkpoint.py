"""Checkpoints written atomically (temp file, fsync, rename) and found again by step number."""

from __future__ import annotations

import os
import re
from pathlib import Path

import torch

_NAME = re.compile(r"^ckpt-(\d{8})\.pt$")


def checkpoint_path(directory: Path, step: int) -> Path:
    return directory / f"ckpt-{step:08d}.pt"


def available_steps(directory: Path) -> list[int]:
    """Steps of the complete checkpoints in `directory`, oldest first (temp files are never complete)."""
    if not directory.is_dir():
        return []
    steps = [int(m.group(1)) for p in directory.iterdir() if (m := _NAME.match(p.name))]
    return sorted(steps)


def save_atomic(state: dict, directory: Path, step: int, keep: int = 2) -> Path:
    """Write `state` so that a reader sees either the whole checkpoint or none of it, then prune old ones."""
    directory.mkdir(parents=True, exist_ok=True)
    final = checkpoint_path(directory, step)
    tmp = directory / f".{final.name}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, final)  # atomic on POSIX within one file system
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # make the rename itself durable
    finally:
        os.close(dir_fd)
    for old in available_steps(directory)[:-keep]:
        checkpoint_path(directory, old).unlink(missing_ok=True)
    return final


def load(directory: Path, step: int, device: torch.device) -> dict:
    return torch.load(checkpoint_path(directory, step), map_location=device, weights_only=True)

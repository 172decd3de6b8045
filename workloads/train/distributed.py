"""The torchrun environment, read once: who this worker is, where it runs, how many times it was restarted."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class DistEnv:
    rank: int
    local_rank: int
    world_size: int
    local_world_size: int
    restart_count: int  # torchrun's TORCHELASTIC_RESTART_COUNT: group restarts so far
    device: torch.device

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def is_node_main(self) -> bool:
        return self.local_rank == 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1

    @property
    def n_nodes(self) -> int:
        return max(1, self.world_size // self.local_world_size)


DIST_TIMEOUT_ENV = "SAHAB_DIST_TIMEOUT_S"


def dist_timeout_s() -> float:
    """How long a collective may wait for the other workers (SAHAB_DIST_TIMEOUT_S, default 600 s); a value that
    is not 1 to 86400 seconds is a ConfigError naming the variable (`sahab train` checks it before any work)."""
    from ..inputs import env_number

    return env_number(DIST_TIMEOUT_ENV, 600.0, low=1, high=86400)


def init_distributed() -> DistEnv:
    """Join torchrun's process group (NCCL on GPU, gloo on CPU); a plain `python -m` run is a world of one."""
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        device = torch.device("cpu")
    rank = int(os.environ.get("RANK", "0"))
    restart_count = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    if world_size > 1 and not dist.is_initialized():
        backend = "nccl" if device.type == "cuda" else "gloo"
        timeout = timedelta(seconds=dist_timeout_s())
        # env://: MASTER_ADDR/MASTER_PORT of this rendezvous round. The entrypoint sets
        # TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1, so torchrun hands every round a fresh store hosted by that
        # round's rank 0 (torch/distributed/elastic/rendezvous/dynamic_rendezvous.py, next_rendezvous): no key
        # of an earlier round, or of another node's restart count, can be read. `device_id` binds the NCCL
        # communicator to this worker's GPU at once (eager init, no guessing the device at the first collective).
        dist.init_process_group(backend, timeout=timeout,
                                device_id=device if device.type == "cuda" else None)
    return DistEnv(
        rank=rank,
        local_rank=local_rank,
        world_size=world_size,
        local_world_size=int(os.environ.get("LOCAL_WORLD_SIZE", str(world_size))),
        restart_count=restart_count,
        device=device,
    )


def gather_objects(value, env: DistEnv) -> list:
    if not env.distributed:
        return [value]
    out = [None] * env.world_size
    dist.all_gather_object(out, value)
    return out

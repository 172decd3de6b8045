"""The training workload, the teams (tenants) that run it, and burst dispatch to cloud workers."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictInt
from sahab.components import validation
from sahab.components.fleet_config.types import Name, _fits, _Model


class Team(_Model):
    """A tenant: one namespace with its quotas."""

    name: Name
    """Team name; also its namespace."""
    gpu_quota: Annotated[StrictInt, Field(ge=0, le=100_000)] = 8
    """GPUs the team may request in total. Default: 8."""
    cpu_quota: Annotated[StrictInt, Field(ge=1, le=10_000_000)] = 64
    """CPU cores the team may request. Default: 64."""
    memory_quota_gi: Annotated[StrictInt, Field(ge=1, le=100_000_000)] = 256
    """Memory (GiB) the team may request. Default: 256."""
    pod_security: Literal["restricted", "baseline"] = "restricted"
    """Pod Security Admission level enforced. Default: restricted."""
    priority: Literal["critical", "standard", "preemptible"] = "standard"
    """Training tier: its PriorityClass, which Kueue also orders the team's queue by. Default: standard."""


class Workload(_Model):
    """The bundled training workload and the tenants that run it."""

    image: Annotated[str, _fits(validation.image_reference)] = "sahab/workload:0.1.0"
    """Training image; push it to an in-country registry and name it here. Default: sahab/workload:0.1.0."""
    teams: tuple[Team, ...] = (Team(name="ml-training"),)
    """Tenants. Default: one team, ml-training."""
    steps: Annotated[StrictInt, Field(ge=1, le=1_000_000_000)] = 1000
    """Training steps per run. Default: 1000."""
    checkpoint_every: Annotated[StrictInt, Field(ge=1, le=1_000_000_000)] = 100
    """Steps between checkpoints. Default: 100."""
    validate_nodes: StrictBool = True
    """Benchmark each node against its hardware class before training. Default: true."""
    model: Literal["auto", "tiny", "small", "medium", "large"] = "auto"
    """Model preset (workloads/train/presets.py): auto picks the one of each node's GPU class (large on 80 GB
    parts, medium on L40S and 40 GB A100s, small on T4/A10G, tiny on CPUs). Default: auto."""
    batch_size: Annotated[StrictInt, Field(ge=1, le=4096)] | None = None
    """Sequences per GPU (per worker) and micro-batch. Default: the preset's."""
    enabled: StrictBool = False
    """Launch training Jobs on the pools. Default: false (platform only)."""
    team: str | None = None
    """Team whose namespace runs the training Jobs. Default: the first team."""


class Burst(_Model):
    """Burst: training queued on an on-prem manager cluster runs on cloud worker clusters (Kueue MultiKueue).

    The manager gets a `<team>-burst` queue per team whose admission check hands each admitted Job to the
    first worker whose own `<team>-burst` queue admits it onto this stack's scale-from-zero pools."""

    manager: str
    """The on-prem cluster that queues (the owning stack's, taken with `stack_reference`). Required."""
    workers: tuple[str, ...]
    """EKS/AKS clusters that run dispatched Jobs; UAE regions only. Required (at least one)."""
    nodes_per_job: Annotated[StrictInt, Field(ge=1, le=64)] = 2
    """Nodes each burst training Job spans (one pod per node). Default: 2."""

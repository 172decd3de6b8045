"""The torchrun worker: `torchrun ... -m workloads.train [--steps N ...]`.

Every TrainConfig / ModelConfig field is a flag (`--checkpoint-every 50`, `--d-model 512`). Environment:
torchrun's RANK / LOCAL_RANK / WORLD_SIZE / LOCAL_WORLD_SIZE / MASTER_ADDR / MASTER_PORT /
TORCHELASTIC_RESTART_COUNT, and SAHAB_PEAK_FLOPS (per-device peak for MFU; measured here when absent on CPU).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os

from workloads.train.config import ModelConfig, TrainConfig

PEAK_ENV = "SAHAB_PEAK_FLOPS"


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m workloads.train", description=__doc__.splitlines()[0])
    for cls in (TrainConfig, ModelConfig):
        defaults = cls()
        for f in dataclasses.fields(cls):
            if f.name == "model":
                continue
            default = getattr(defaults, f.name)
            if isinstance(default, bool):
                parser.add_argument(_flag(f.name), action=argparse.BooleanOptionalAction, default=default)
            else:
                parser.add_argument(_flag(f.name), type=type(default), default=default)
    return parser


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    values = vars(args)
    model = ModelConfig(**{f.name: values[f.name] for f in dataclasses.fields(ModelConfig)})
    return TrainConfig(
        model=model, **{f.name: values[f.name] for f in dataclasses.fields(TrainConfig) if f.name != "model"}
    )


def config_to_args(cfg: TrainConfig) -> list[str]:
    """The inverse of `config_from_args`: flags that rebuild `cfg` in a worker."""
    args: list[str] = []
    for obj in (cfg, cfg.model):
        for f in dataclasses.fields(obj):
            if f.name == "model":
                continue
            value = getattr(obj, f.name)
            if isinstance(value, bool):
                args.append(_flag(f.name) if value else "--no-" + f.name.replace("_", "-"))
            else:
                args += [_flag(f.name), str(value)]
    return args


def set_threads(cfg: TrainConfig, local_world_size: int) -> int:
    """Split this node's cores between its local workers (torchrun would leave each with one thread)."""
    import torch

    from workloads.bench.catalog import cpu_count

    threads = cfg.threads or max(1, cpu_count() // max(1, local_world_size))
    torch.set_num_threads(threads)
    with_interop = min(2, threads)
    with contextlib.suppress(RuntimeError):  # only settable before the first parallel op
        torch.set_num_interop_threads(with_interop)
    return threads


def peak_flops_per_device(precision: str) -> float | None:
    """Catalog peak on GPU; on CPU this node's measured GEMM rate in the run's precision (or the launcher's
    measurement, handed down in SAHAB_PEAK_FLOPS)."""
    if os.environ.get(PEAK_ENV):
        return float(os.environ[PEAK_ENV])
    from workloads.bench.capability import peak_flops
    from workloads.bench.catalog import UnknownHardware

    try:
        return peak_flops(precision)
    except UnknownHardware:
        return None  # a GPU the catalog does not know: train, but report no MFU rather than a wrong one


def main(argv: list[str] | None = None) -> int:
    cfg = config_from_args(build_parser().parse_args(argv))

    import torch.distributed as dist

    from workloads.train.distributed import init_distributed
    from workloads.train.trainer import Trainer, emit, resolve_precision

    env = init_distributed()
    set_threads(cfg, env.local_world_size)
    peak = None
    if env.is_main:
        peak = peak_flops_per_device(resolve_precision(cfg.precision, env.device))
    trainer = Trainer(cfg, env, peak)
    summary = trainer.train()
    if env.is_main:
        emit("summary", **summary)
        if cfg.summary_file:
            tmp = f"{cfg.summary_file}.tmp"
            with open(tmp, "w") as f:
                json.dump(summary, f)
            os.replace(tmp, cfg.summary_file)
    if dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()
    return 0

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
import math
import os
import sys

from ..errors import ConfigError
from .config import ModelConfig, TrainConfig
from .presets import NAMES, apply_preset

PEAK_ENV = "SAHAB_PEAK_FLOPS"


def peak_from_env() -> float | None:
    """The per-device peak FLOP/s a user gave in SAHAB_PEAK_FLOPS; None when unset."""
    text = os.environ.get(PEAK_ENV, "").strip()
    if not text:
        return None
    try:
        peak = float(text)
    except ValueError:
        peak = math.nan
    if not math.isfinite(peak) or peak <= 0:
        raise ConfigError(PEAK_ENV, f"must be a positive number of FLOP/s per device (e.g. 3.12e14), not {text!r}")
    return peak


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

    from ..bench.hardware_classes import cpu_count

    threads = cfg.threads or max(1, cpu_count() // max(1, local_world_size))
    torch.set_num_threads(threads)
    with_interop = min(2, threads)
    with contextlib.suppress(RuntimeError):  # only settable before the first parallel op
        torch.set_num_interop_threads(with_interop)
    return threads


def peak_flops_per_device(precision: str) -> float | None:
    """The peak in SAHAB_PEAK_FLOPS (the user's, or what the launcher or the image's validation handed down); else
    the catalog peak on a GPU, and on a CPU this node's measured GEMM rate in the run's precision."""
    given = peak_from_env()
    if given:
        return given
    from ..bench.capability import peak_flops
    from ..bench.hardware_classes import UnknownHardware

    try:
        return peak_flops(precision)
    except UnknownHardware:
        return None  # a GPU the catalog does not know: train, but report no MFU rather than a wrong one


def fabric_carries(env) -> bool:
    """Across nodes, before training: does the fabric carry the all-reduce (workloads.bench.fabric)? Every rank
    measures (a collective) and every rank gets the same verdict; below the floor the node set does not train."""
    from ..bench import fabric
    from .trainer import emit

    expected = fabric.configured()
    if expected is None or env.n_nodes < 2:
        return True
    result = fabric.measure(expected, env.n_nodes, str(env.device))
    if env.is_main:
        emit("fabric", **result.to_json())
        if not result.passed:
            print(f"error: all-reduce across {env.n_nodes} nodes reached {result.bus_bytes_per_s / fabric.GBIT:.2f}"
                  f" Gb/s, far below the {expected.name} fabric's {expected.gbps:g} Gb/s (floor "
                  f"{expected.floor_bytes_per_s / fabric.GBIT:.2f}): not training on this node set", file=sys.stderr)
    return result.passed


def _hardware_class() -> str | None:
    from ..bench.capability import detect
    from ..bench.hardware_classes import UnknownHardware

    try:
        return detect().hardware_class
    except UnknownHardware:
        return None  # a GPU the catalog does not know: the model as configured


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    parser.add_argument("--preset", choices=NAMES, default=None,
                        help="model and per-worker batch of a preset (auto: this node's hardware class)")
    args = parser.parse_args(argv)
    cfg = config_from_args(args)
    from .distributed import dist_timeout_s

    peak_from_env()  # every rank refuses a bad value before it joins the group
    dist_timeout_s()  # and a bad SAHAB_DIST_TIMEOUT_S
    if args.preset:
        flags = {a.split("=", 1)[0] for a in (sys.argv[1:] if argv is None else argv) if a.startswith("--")}
        given = frozenset(f[2:].replace("-", "_") for f in flags)
        cfg = apply_preset(cfg, args.preset, _hardware_class(), given)

    import torch.distributed as dist

    from .distributed import init_distributed
    from .trainer import Trainer, emit, resolve_precision

    env = init_distributed()
    set_threads(cfg, env.local_world_size)
    if not fabric_carries(env):
        return 1
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
        # The run is done: every checkpoint written, the summary printed, the group destroyed. A torchrun worker
        # ends here, before this frame's objects are released and before the interpreter's teardown: a finished
        # worker of a loopback fleet once hung in a destructor as this function returned (its agent then never
        # reached torch's exit barrier, and its peers' agents waited there), and gloo's threads have aborted
        # finished ranks at teardown under load. Either would turn a finished run into a never-ending or failed pod.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0

"""`train` (`python -m workloads train`, `sahab train`): validate this node, then train the bundled GPT under
torchrun with N local workers."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path

from ..bench.validate import DEFAULT_TIME_BUDGET_S
from ..errors import ConfigError, UsageError, WorkloadError
from ..inputs import input_file
from ..outputs import check_writable_dir
from .bench import time_budget

HELP = "Validate this node, then train the bundled GPT model under torchrun (restarts on a lost worker)."


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None


def _between(low: int, high: int):
    """An argparse type: a whole number from `low` to `high` (bounds keep typos from becoming runs that
    cannot start: a million workers, a billion steps)."""

    def parse(text: str) -> int:
        value = _integer(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high:,}, not {value}")
        return value

    return parse


_positive = _between(1, 1_000_000)
_non_negative = _between(0, 1_000_000)


def _learning_rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= 1):
        raise argparse.ArgumentTypeError(f"must be a number above 0 and at most 1, not {text}")
    return value


def _endpoint(text: str) -> str:
    """An S3-compatible endpoint: http(s)://host[:port], nothing after it (boto3 adds the bucket)."""
    from urllib.parse import urlsplit

    try:
        url = urlsplit(text)
        url.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        url = None
    if url is None or url.scheme not in ("https", "http") or not url.hostname or url.path.strip("/") \
            or url.query or url.fragment or url.username:
        raise argparse.ArgumentTypeError(f"must be https://HOST[:PORT] (or http:// on loopback), not {text!r}")
    if url.scheme == "http" and url.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise argparse.ArgumentTypeError(f"{text!r}: plain http only on loopback; checkpoints travel over https")
    return text.rstrip("/")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nproc", type=_between(1, 256), default=2, help="local workers, 1-256 (2)")
    parser.add_argument("--steps", type=_between(1, 1_000_000_000), default=200,
                        help="optimizer steps in the whole run (200)")
    parser.add_argument("--checkpoint-every", type=_non_negative, default=50,
                        help="steps between checkpoints; 0: only the final one (50)")
    parser.add_argument("--checkpoint-dir", metavar="DIR|s3://BUCKET/PREFIX|az://CONTAINER/PREFIX",
                        help="where sharded checkpoints live; a run resumes from the newest complete one there, "
                             "on any node (default: a temporary directory removed afterwards). Credentials "
                             "for s3:// and az:// come from the environment only")
    parser.add_argument("--s3-endpoint", type=_endpoint, metavar="URL",
                        help="an S3-compatible store for an s3:// --checkpoint-dir, e.g. an in-country one on "
                             "premises (default: $AWS_ENDPOINT_URL_S3, else AWS S3)")
    parser.add_argument("--max-restarts", type=_between(0, 100), default=3,
                        help="times torchrun restarts the worker group after a failure (3)")
    parser.add_argument("--skip-validation", action="store_true", help="train without validating first")
    parser.add_argument("--baseline", type=input_file("a baseline JSON file (sahab bench --save-baseline)"),
                        metavar="FILE", help="validate against this baseline")
    parser.add_argument("--time-budget", metavar="SECONDS", type=time_budget, default=DEFAULT_TIME_BUDGET_S,
                        help="hard limit on the validation, as `sahab bench --time-budget` (%(default)g)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (text)")
    model = parser.add_argument_group("model and batch")
    model.add_argument("--d-model", type=_positive, default=256, help="residual width (256)")
    model.add_argument("--n-layers", type=_positive, default=4, help="transformer blocks (4)")
    model.add_argument("--n-heads", type=_positive, default=4, help="attention heads (4)")
    model.add_argument("--seq-len", type=_positive, default=128, help="context length (128)")
    model.add_argument("--batch-size", type=_positive, default=8,
                       help="sequences per worker and micro-batch (8)")
    model.add_argument("--grad-accum", type=_positive, default=1, help="micro-batches per step (1)")
    model.add_argument("--precision", choices=("auto", "bf16", "fp16", "fp32"), default="auto",
                       help="auto: bf16 autocast where the hardware has fast bf16 (auto)")
    model.add_argument("--compile", action="store_true",
                       help="torch.compile the model (slower start, faster steps)")
    model.add_argument("--lr", type=_learning_rate, default=3e-3, help="peak learning rate, (0, 1] (3e-3)")


def build_config(args: argparse.Namespace, checkpoint_dir: str, summary_file: Path):
    from ..train.config import ModelConfig, TrainConfig

    try:
        model = ModelConfig(d_model=args.d_model, n_layers=args.n_layers, n_heads=args.n_heads,
                            seq_len=args.seq_len)
        return TrainConfig(
            model=model, steps=args.steps, batch_size=args.batch_size, grad_accum=args.grad_accum,
            lr=args.lr, min_lr=args.lr / 10, warmup_steps=min(10, max(1, args.steps // 10)),
            checkpoint_every=args.checkpoint_every, checkpoint_dir=str(checkpoint_dir),
            precision=args.precision, compile=args.compile, log_every=max(1, min(10, args.steps // 20)),
            summary_file=str(summary_file),
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="sahab-train-") as tmp:
        checkpoint_dir = args.checkpoint_dir or str(Path(tmp) / "checkpoints")
        return _train(args, checkpoint_dir, Path(tmp) / "summary.json")


def _train(args: argparse.Namespace, checkpoint_dir: str, summary_file: Path) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from ..bench.capability import injected_flags

    injected_flags()  # a bad SAHAB_CPU_FLAGS is refused before PyTorch loads
    from ..train.distributed import dist_timeout_s
    from ..train.launch import TrainingFailed, run_torchrun
    from ..train.worker import peak_from_env

    cfg = build_config(args, checkpoint_dir, summary_file)
    given_peak = peak_from_env()  # a bad value is refused before any work
    dist_timeout_s()  # so is a bad SAHAB_DIST_TIMEOUT_S, which every worker would otherwise trip over
    _check_fits_in_memory(cfg, args.nproc)
    from ..train.storage import is_remote

    if args.checkpoint_dir and not is_remote(checkpoint_dir):
        check_writable_dir("--checkpoint-dir", Path(checkpoint_dir))
    if args.s3_endpoint:
        if not checkpoint_dir.startswith("s3://"):
            raise UsageError(f"--s3-endpoint applies to an s3:// --checkpoint-dir, not {checkpoint_dir!r}")
        # boto3 reads it here and in every worker torchrun starts (they inherit this environment).
        os.environ["AWS_ENDPOINT_URL_S3"] = args.s3_endpoint
    _check_resumable(cfg)
    console = Console(stderr=True)
    refused, peak = _validate(args, cfg.precision, console, measure_peak=given_peak is None)
    if refused:
        return refused
    peak = given_peak or peak

    columns = (TextColumn("training"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[status]}"),
               TimeRemainingColumn())
    with Progress(*columns, console=console, transient=args.format == "json") as progress:
        task = progress.add_task("train", total=cfg.steps, status="starting workers")

        def on_event(event: dict) -> None:
            kind = event["event"]
            if kind == "start":
                note = f"resumed at step {event['step']}" if event["step"] else "fresh start"
                if event.get("restart"):
                    note = f"restart {event['restart']}: {note}"
                progress.update(task, completed=event["step"], status=note)
            elif kind == "progress":
                progress.update(task, completed=event["step"],
                                status=f"loss {event['loss']:.3f}  {event['tokens_per_s']:,.0f} tok/s")

        try:
            summary = run_torchrun(cfg, args.nproc, args.max_restarts, peak_flops=peak or None,
                                   on_event=on_event)
        except TrainingFailed as exc:
            print(f"error: training failed: {exc}", file=sys.stderr)
            return 1
    if args.format == "text":
        print(_describe(summary), file=sys.stderr)
    print(json.dumps(summary))
    return 0


# fp32 weights, gradients and AdamW's two moments: 16 bytes a parameter, before any activation
BYTES_PER_PARAMETER = 16


def _check_fits_in_memory(cfg, nproc: int) -> None:
    """A model whose weights and optimizer state alone exceed this node's free memory cannot start; say so
    here instead of in every worker's out-of-memory traceback."""
    from ..train.flops import matmul_params

    available = _available_memory()
    needed = matmul_params(cfg.model) * BYTES_PER_PARAMETER * nproc
    if available and needed > available:
        raise UsageError(
            f"--d-model {cfg.model.d_model} --n-layers {cfg.model.n_layers} x --nproc {nproc}: weights and "
            f"optimizer state alone need {needed / 2**30:,.1f} GiB, this node has {available / 2**30:,.1f} GiB free"
        )


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _check_resumable(cfg) -> None:
    """The checkpoint location is reachable and holds no other model: usage errors, caught before any
    worker starts (for s3:// and az:// this is also where missing credentials show)."""
    import dataclasses

    from ..train import checkpoint
    from ..train.storage import StoreError, open_store

    where = cfg.checkpoint_dir
    try:
        store = open_store(where)
        steps = checkpoint.complete_steps(store)
        if not steps:
            return
        saved = json.loads(checkpoint.read_manifest(store, steps[-1])["config"])["model"]
    except StoreError as exc:
        raise UsageError(f"--checkpoint-dir {exc}") from exc
    except ImportError as exc:
        raise UsageError(f"--checkpoint-dir {where}: needs the {exc.name} package (pip install "
                         f"'sahab[workload]')") from exc
    except Exception as exc:  # credentials, network, an unreadable manifest: say which, once
        raise ConfigError(f"--checkpoint-dir {where}",
                          f"cannot read checkpoints ({type(exc).__name__}: {exc})") from exc
    if saved != dataclasses.asdict(cfg.model):
        raise ConfigError(f"--checkpoint-dir {where}",
                          f"step {steps[-1]} holds a different model {saved}; use another --checkpoint-dir")


def _validate(args: argparse.Namespace, precision: str, console, measure_peak: bool) -> tuple[int, float | None]:
    """Run `sahab bench`'s validation: (exit code if the node is refused, else 0; peak FLOP/s for MFU, measured
    only if `measure_peak`: a peak the user gave in SAHAB_PEAK_FLOPS is theirs to keep)."""
    if args.skip_validation:
        return 0, _measured_peak(precision) if measure_peak else None
    from ..bench.hardware_classes import UnknownHardware
    from ..bench.validate import (
        BaselineError,
        exit_code,
        peak_flops_from,
        result_to_text,
        run_validation,
    )

    try:
        with console.status("validating this node") as status:
            result = run_validation(args.baseline, on_probe=lambda name: status.update(f"probe: {name}"),
                                    time_budget=args.time_budget)
    except BaselineError as exc:
        raise ConfigError(f"--baseline {args.baseline}", str(exc).split(": ", 1)[-1]) from exc
    except UnknownHardware as exc:
        raise WorkloadError(str(exc).strip("'\"")) from exc
    print(result_to_text(result), file=sys.stderr)
    if not result.passed:
        for failure in result.failures():
            print(f"failed: {failure}", file=sys.stderr)
        what = "failed validation" if result.verdict == "fail" else f"could not be validated ({result.reason})"
        print(f"error: this node {what}; not training on it (--skip-validation overrides)", file=sys.stderr)
        return exit_code(result), None
    if precision not in ("auto", result.precision):
        return 0, _measured_peak(precision) if measure_peak else None  # the peak of the precision the run uses
    return 0, peak_flops_from(result)


def _measured_peak(precision: str) -> float | None:
    """Measure the peak once here (two seconds at most), before the workers start, so they do not each measure it."""
    from ..bench.capability import peak_flops, resolve_precision
    from ..bench.hardware_classes import UnknownHardware

    try:
        return peak_flops(resolve_precision(precision, "cpu"))
    except UnknownHardware as exc:
        raise WorkloadError(str(exc).strip("'\"")) from exc


def _describe(summary: dict) -> str:
    m = summary["model"]
    mfu = "n/a" if summary["mfu"] is None else f"{summary['mfu']:.1%}"
    tps = "n/a" if summary["tokens_per_s"] is None else f"{summary['tokens_per_s']:,.0f}"
    return (
        f"trained {summary['steps']} steps ({summary['restarts']} restarts, last start at step "
        f"{summary['resumed_from']}): loss {summary['first_loss']} -> {summary['final_loss']}, "
        f"{tps} tokens/s, MFU {mfu}; {m['n_params']:,} parameters, {m['n_layers']} layers x {m['d_model']}"
    )



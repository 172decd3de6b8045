"""`sahab train`: validate this node, then train the bundled GPT under torchrun with N local workers."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from sahab.errors import ConfigError, SahabError, UsageError

HELP = "Validate this node, then train the bundled GPT model under torchrun (restarts on a lost worker)."


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nproc", type=_positive, default=2, help="local workers (2)")
    parser.add_argument("--steps", type=_positive, default=200, help="optimizer steps in the whole run (200)")
    parser.add_argument("--checkpoint-every", type=_non_negative, default=50,
                        help="steps between checkpoints; 0: only the final one (50)")
    parser.add_argument("--checkpoint-dir", type=Path,
                        help="where checkpoints live; a run resumes from the newest one here (default: a "
                             "temporary directory removed afterwards)")
    parser.add_argument("--max-restarts", type=_non_negative, default=3,
                        help="times torchrun restarts the worker group after a failure (3)")
    parser.add_argument("--skip-validation", action="store_true", help="train without validating first")
    parser.add_argument("--baseline", type=Path, metavar="FILE", help="validate against this baseline")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (text)")
    model = parser.add_argument_group("model and batch")
    model.add_argument("--d-model", type=_positive, default=256, help="residual width (256)")
    model.add_argument("--n-layers", type=_positive, default=4, help="transformer blocks (4)")
    model.add_argument("--n-heads", type=_positive, default=4, help="attention heads (4)")
    model.add_argument("--seq-len", type=_positive, default=128, help="context length (128)")
    model.add_argument("--batch-size", type=_positive, default=8,
                       help="sequences per worker and micro-batch (8)")
    model.add_argument("--grad-accum", type=_positive, default=1, help="micro-batches per step (1)")
    model.add_argument("--precision", choices=("auto", "bf16", "fp32"), default="auto",
                       help="auto: bf16 autocast where the hardware has fast bf16 (auto)")
    model.add_argument("--compile", action="store_true",
                       help="torch.compile the model (slower start, faster steps)")
    model.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (3e-3)")


def build_config(args: argparse.Namespace, checkpoint_dir: Path, summary_file: Path):
    from workloads.train.config import ModelConfig, TrainConfig

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
        checkpoint_dir = args.checkpoint_dir or Path(tmp) / "checkpoints"
        return _train(args, checkpoint_dir, Path(tmp) / "summary.json")


def _train(args: argparse.Namespace, checkpoint_dir: Path, summary_file: Path) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from workloads.train.launch import TrainingFailed, run_torchrun

    cfg = build_config(args, checkpoint_dir, summary_file)
    _check_resumable(cfg)
    console = Console(stderr=True)
    peak = _validate(args, console)
    if peak is False:
        return 1

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


def _check_resumable(cfg) -> None:
    """A checkpoint directory holding another model is a usage error, caught before any worker starts."""
    import dataclasses

    import torch

    from workloads.train import checkpoint

    directory = Path(cfg.checkpoint_dir)
    steps = checkpoint.available_steps(directory)
    if not steps:
        return
    path = checkpoint.checkpoint_path(directory, steps[-1])
    try:
        saved = json.loads(torch.load(path, map_location="cpu", weights_only=True)["config"])["model"]
    except Exception as exc:  # an unreadable checkpoint: say which, rather than fail in every worker
        raise ConfigError(str(path), f"cannot read checkpoint ({type(exc).__name__}: {exc})") from exc
    if saved != dataclasses.asdict(cfg.model):
        raise ConfigError(str(path), f"holds a different model {saved}; use another --checkpoint-dir")


def _validate(args: argparse.Namespace, console) -> float | bool | None:
    """Run `sahab bench`'s validation; the measured peak for MFU, None if skipped, False if it failed."""
    if args.skip_validation:
        return _measured_peak()
    from workloads.bench.catalog import UnknownHardware
    from workloads.bench.validate import BaselineError, peak_flops_from, result_to_text, run_validation

    try:
        with console.status("validating this node") as status:
            result = run_validation(args.baseline, on_probe=lambda name: status.update(f"probe: {name}"))
    except BaselineError as exc:
        raise ConfigError(str(args.baseline), str(exc).split(": ", 1)[-1]) from exc
    except UnknownHardware as exc:
        raise SahabError(str(exc).strip("'\"")) from exc
    print(result_to_text(result), file=sys.stderr)
    if not result.passed:
        for failure in result.failures():
            print(f"failed: {failure}", file=sys.stderr)
        print("error: this node failed validation; not training on it (--skip-validation overrides)",
              file=sys.stderr)
        return False
    return peak_flops_from(result)


def _measured_peak() -> float | None:
    """Measure the GEMM peak once here, before the workers start, so they do not each measure it."""
    from workloads.bench.catalog import CATALOG, UnknownHardware, detect
    from workloads.bench.gemm import gemm_flops

    try:
        name, _ = detect()
    except UnknownHardware as exc:
        raise SahabError(str(exc).strip("'\"")) from exc
    hw = CATALOG[name]
    if hw.is_gpu:
        return hw.peak_flops("bf16") or hw.peak_flops("fp16")
    return max(gemm_flops("bf16", budget_s=0.3), gemm_flops("fp32", budget_s=0.3))


def _describe(summary: dict) -> str:
    m = summary["model"]
    mfu = "n/a" if summary["mfu"] is None else f"{summary['mfu']:.1%}"
    tps = "n/a" if summary["tokens_per_s"] is None else f"{summary['tokens_per_s']:,.0f}"
    return (
        f"trained {summary['steps']} steps ({summary['restarts']} restarts, last start at step "
        f"{summary['resumed_from_step']}): loss {summary['first_loss']} -> {summary['final_loss']}, "
        f"{tps} tokens/s, MFU {mfu}; {m['n_params']:,} parameters, {m['n_layers']} layers x {m['d_model']}"
    )



"""The Trainer: DDP, mixed precision, gradient accumulation, sharded atomic checkpoints, resume on every start."""

from __future__ import annotations

import contextlib
import json
import math
import time

import torch
import torch.distributed as dist
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.nn.parallel import DistributedDataParallel as DDP

from ..schema import versions
from .checkpoint import Checkpointer
from .config import TrainConfig
from .data import TokenBatches, default_batches
from .distributed import DistEnv, gather_objects
from .flops import mfu
from .model import GPT

WARMUP_STEPS_UNTIMED = 2  # first steps pay for allocation, oneDNN primitive creation and compilation


def resolve_precision(requested: str, device: torch.device) -> str:
    """bf16 where the hardware has a native bf16 path, fp16 on CUDA parts without bf16, else fp32: decided
    once per node by workloads.bench.capability."""
    from ..bench import capability

    return capability.resolve_precision(requested, device.type)


def use_tf32(device: torch.device, precision: str) -> bool:
    """fp32 matmuls on TF32 tensor cores on Ampere and later (sm80+): ~8x the fp32 rate, 10-bit mantissa inputs
    with fp32 accumulation, the usual choice for training."""
    if device.type != "cuda" or precision != "fp32" or torch.cuda.get_device_capability(device) < (8, 0):
        return False
    torch.backends.cuda.matmul.fp32_precision = "tf32"
    return True


def make_optimizer(model: torch.nn.Module, cfg: TrainConfig) -> torch.optim.Optimizer:
    # no weight decay on norms and embeddings-as-vectors: only on matrices
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    try:  # one fused kernel per step instead of a dozen foreach kernels
        return torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, 0.95), fused=True)
    except (RuntimeError, TypeError):
        return torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, 0.95))


def learning_rate(step: int, cfg: TrainConfig) -> float:
    """Linear warm-up, then cosine decay to `min_lr` at the last step."""
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    progress = (step - cfg.warmup_steps) / max(1, cfg.steps - cfg.warmup_steps)
    return cfg.min_lr + 0.5 * (cfg.lr - cfg.min_lr) * (1 + math.cos(math.pi * min(1.0, progress)))


def emit(event: str, **fields) -> None:
    """One JSON line on stdout: the launcher's progress bar and the container log read these."""
    print(json.dumps({"event": event, **fields}), flush=True)


class Trainer:
    def __init__(self, cfg: TrainConfig, env: DistEnv, peak_flops: float | None,
                 batches: TokenBatches | None = None):
        self.cfg = cfg
        self.env = env
        self.peak_flops = peak_flops  # per device; None: MFU not reported
        self.precision = resolve_precision(cfg.precision, env.device)
        self.checkpoints = Checkpointer(cfg.checkpoint_dir, env.is_main, env.is_node_main)
        torch.manual_seed(cfg.seed)  # identical initial weights on every rank
        self.raw_model = GPT(cfg.model).to(env.device)
        self.optimizer = make_optimizer(self.raw_model, cfg)
        self.scaler = torch.amp.GradScaler(env.device.type, enabled=self.precision == "fp16")
        self.batches = batches or default_batches(cfg.model.seq_len, cfg.batch_size, cfg.seed)
        self.step = 0
        self.first_loss: float | None = None
        self.resumed_from = self._load_snapshot()
        self.tf32 = use_tf32(env.device, self.precision)
        model: torch.nn.Module = self.raw_model
        self.ddp: DDP | None = None
        if env.distributed:
            # Wrapped before compiling, so the compiled graph breaks at DDP's buckets and each bucket's
            # all-reduce overlaps the rest of backward. No buffer is trained, so none is broadcast before each
            # forward (forward_sync_buffers, torch 2.13's name for broadcast_buffers).
            cuda = env.device.type == "cuda"
            self.ddp = DDP(model, device_ids=[env.device.index] if cuda else None, forward_sync_buffers=False)
            model = self.ddp
        if cfg.compile:
            model = torch.compile(model)
        self.model = model
        self._pinned = env.device.type == "cuda"  # page-locked host batches: the copy is asynchronous
        self._next: tuple | None = None  # the next micro-batch, already on its way to the device

    # -- checkpoints -----------------------------------------------------------------------------------
    def _load_snapshot(self) -> int:
        """Resume from the newest complete checkpoint every rank can see; 0 when starting fresh.

        All ranks agree on the step (the newest they all see) before loading, so no rank can resume from a
        checkpoint another does not have yet."""
        local = set(self.checkpoints.complete_steps())
        common = set.intersection(*(set(s) for s in gather_objects(sorted(local), self.env)))
        if not common:
            return 0
        step = max(common)
        state = self._state()
        manifest = self.checkpoints.load(step, state)
        saved_model = json.loads(manifest["config"])["model"]
        current_model = json.loads(self.cfg.to_json())["model"]
        if saved_model != current_model:
            raise SystemExit(
                f"checkpoint of step {step} in {self.cfg.checkpoint_dir} holds a different model "
                f"({saved_model}) than requested ({current_model}); use another --checkpoint-dir"
            )
        set_state_dict(self.raw_model, self.optimizer, model_state_dict=state["model"],
                       optim_state_dict=state["optim"])
        if manifest.get("scaler"):
            self.scaler.load_state_dict(manifest["scaler"])
        self.step = int(manifest["step"])
        self.first_loss = manifest["first_loss"]
        return self.step

    def _state(self) -> dict:
        """Model and optimizer state keyed by parameter name, as torch.distributed.checkpoint shards it."""
        model_state, optim_state = get_state_dict(self.raw_model, self.optimizer)
        return {"model": model_state, "optim": optim_state}

    def _save_checkpoint(self, step: int) -> None:
        """Collective: every rank writes its shard; rank 0 commits the manifest once all are written."""
        meta = {
            "first_loss": self.first_loss,
            "config": self.cfg.to_json(),
            "scaler": self.scaler.state_dict() if self.scaler.is_enabled() else None,
            "world_size": self.env.world_size,
        }
        self.checkpoints.save(step, self._state(), meta)

    # -- one optimizer step ----------------------------------------------------------------------------
    def _load(self, step: int, micro: int) -> tuple[torch.Tensor, torch.Tensor]:
        x, y = self.batches.batch(step, micro, self.env.rank)
        if self._pinned:
            x, y = x.pin_memory(), y.pin_memory()
        return x.to(self.env.device, non_blocking=True), y.to(self.env.device, non_blocking=True)

    def _batch(self, step: int, micro: int) -> tuple[torch.Tensor, torch.Tensor]:
        """This micro-batch (prefetched if it was the one expected), and the next one set on its way."""
        ready, self._next = self._next, None
        if ready is None or ready[0] != (step, micro):
            ready = ((step, micro), self._load(step, micro))
        following = (step, micro + 1) if micro + 1 < self.cfg.grad_accum else (step + 1, 0)
        self._next = (following, self._load(*following))
        return ready[1]

    def _run_batch(self, step: int) -> torch.Tensor:
        """Forward and backward over `grad_accum` micro-batches, then one optimizer step. Returns the loss as a
        tensor on the device: reading it would make the host wait for the device, so only logging does."""
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate(step, self.cfg)
        device_type = self.env.device.type
        amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(self.precision)
        total = torch.zeros((), device=self.env.device)
        for micro in range(self.cfg.grad_accum):
            x, y = self._batch(step, micro)
            last = micro == self.cfg.grad_accum - 1
            # gradients are all-reduced once per step, on the last micro-batch only
            sync = contextlib.nullcontext() if last or self.ddp is None else self.ddp.no_sync()
            with sync:
                autocast = torch.autocast(device_type, dtype=amp_dtype, enabled=amp_dtype is not None)
                with autocast:
                    _, loss = self.model(x, y)
                loss = loss / self.cfg.grad_accum
                self.scaler.scale(loss).backward()
            total += loss.detach().float()
        if self.cfg.grad_clip > 0:
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.raw_model.parameters(), self.cfg.grad_clip)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        return total

    def _mean_loss(self, loss: torch.Tensor) -> float:
        """The loss averaged over every rank: a collective, and the one place the loop waits for the device."""
        if self.env.distributed:
            loss = loss.clone()
            dist.all_reduce(loss)  # SUM: gloo has no AVG
            loss /= self.env.world_size
        return float(loss)

    def _synchronize(self) -> None:
        if self.env.device.type == "cuda":
            torch.cuda.synchronize(self.env.device)

    # -- the loop --------------------------------------------------------------------------------------
    def train(self) -> dict:
        cfg, env = self.cfg, self.env
        if env.is_main:
            emit("start", step=self.step, steps=cfg.steps, restart=env.restart_count,
                 resumed_from=self.resumed_from, world_size=env.world_size,
                 precision=self.precision, tf32=self.tf32)
        timer = _Timer(self._synchronize)
        final_loss = float("nan")
        steps_this_start = 0
        while self.step < cfg.steps:
            loss = self._run_batch(self.step)
            self.step += 1
            steps_this_start += 1
            if steps_this_start == WARMUP_STEPS_UNTIMED:
                timer.start(self.step)
            last = self.step == cfg.steps
            logged = self.step % cfg.log_every == 0 or last
            if logged or self.first_loss is None:
                final_loss = self._mean_loss(loss)  # every rank: it is a collective
                timer.lap(self.step)
                if self.first_loss is None:
                    self.first_loss = final_loss
            if env.is_main and logged:
                emit("progress", step=self.step, steps=cfg.steps, loss=round(final_loss, 4),
                     tokens_per_s=round(self._tokens_per_s(timer.steps, timer.seconds) or 0.0, 1))
            if last or (cfg.checkpoint_every and self.step % cfg.checkpoint_every == 0):
                timer.pause(self.step)  # checkpoint time is not training throughput
                self._save_checkpoint(self.step)
                timer.start(self.step)
        return self._summary(final_loss, self._tokens_per_s(timer.steps, timer.seconds))

    def _tokens_per_s(self, timed_steps: int, timed_seconds: float) -> float | None:
        """Tokens per second of the whole job, over the timed steps of this start (checkpoints excluded)."""
        if not timed_steps:
            return None
        return self.cfg.tokens_per_step_per_worker * self.env.world_size * timed_steps / timed_seconds

    def _summary(self, final_loss: float, tokens_per_s: float | None) -> dict:
        m = self.cfg.model
        devices = self.env.world_size if self.env.device.type == "cuda" else self.env.n_nodes
        utilisation = None
        if tokens_per_s and self.peak_flops:
            utilisation = round(mfu(tokens_per_s, m, self.peak_flops * devices), 4)
        return {
            **versions(),
            "steps": self.step,
            "restarts": self.env.restart_count,
            "first_loss": None if self.first_loss is None else round(self.first_loss, 4),
            "final_loss": None if math.isnan(final_loss) else round(final_loss, 4),
            "tokens_per_s": None if tokens_per_s is None else round(tokens_per_s, 1),
            "mfu": utilisation,
            "model": {
                "n_params": self.raw_model.n_params(),
                "n_layers": m.n_layers,
                "n_heads": m.n_heads,
                "d_model": m.d_model,
                "seq_len": m.seq_len,
                "vocab_size": m.vocab_size,
                "batch_size": self.cfg.batch_size * self.cfg.grad_accum * self.env.world_size,
            },
            "resumed_from": self.resumed_from,
            "precision": self.precision,
            "world_size": self.env.world_size,
        }


class _Timer:
    """Training time and steps over windows that exclude warm-up and checkpoints. It reads the clock only where
    the loop already waits for the device (a logged loss) or must (a checkpoint), never on every step."""

    def __init__(self, synchronize):
        self._synchronize = synchronize
        self._mark: tuple[float, int] | None = None
        self.steps, self.seconds = 0, 0.0

    def start(self, step: int) -> None:
        self._synchronize()
        self._mark = (time.perf_counter(), step)

    def lap(self, step: int) -> None:
        """At a point where the device is idle already (a loss was just read)."""
        if self._mark is not None:
            now = time.perf_counter()
            self.steps += step - self._mark[1]
            self.seconds += now - self._mark[0]
            self._mark = (now, step)

    def pause(self, step: int) -> None:
        self._synchronize()
        self.lap(step)
        self._mark = None

"""Typed configuration of the bundled training run: the model shape and the trainer's knobs.

Frozen dataclasses (no pydantic: the worker image needs nothing but torch) with every default written down.
`from_env`/`to_env` let the launcher hand one config to every torchrun worker unchanged.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

PRECISIONS = ("auto", "bf16", "fp16", "fp32")


@dataclass(frozen=True)
class ModelConfig:
    """Shape of the GPT-style decoder."""

    vocab_size: int = 64  # the generated corpus uses fewer symbols; 64 keeps the embedding aligned
    seq_len: int = 128  # context length in tokens
    n_layers: int = 4
    n_heads: int = 8
    d_model: int = 512  # residual width; the MLP is 4x this
    dropout: float = 0.0  # no dropout: the corpus is generated, overfitting is not the risk

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")
        for name in ("vocab_size", "seq_len", "n_layers", "n_heads", "d_model"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")


@dataclass(frozen=True)
class TrainConfig:
    """What the Trainer does with the model."""

    model: ModelConfig = field(default_factory=ModelConfig)
    steps: int = 200  # optimizer steps in the whole run, across restarts
    batch_size: int = 8  # sequences per micro-batch per worker
    grad_accum: int = 1  # micro-batches per optimizer step
    lr: float = 3e-3
    min_lr: float = 3e-4  # cosine decay floor
    warmup_steps: int = 10
    weight_decay: float = 0.1
    grad_clip: float = 1.0  # 0 disables clipping
    checkpoint_every: int = 50  # steps between checkpoints; 0 only writes the final one
    checkpoint_dir: str = "checkpoints"
    # auto: what this node computes fast (bf16 where it has a native path; fp16 with a gradient scaler on GPUs
    # without bf16, e.g. T4; else fp32); or bf16 / fp16 / fp32
    precision: str = "auto"
    compile: bool = False  # torch.compile the model (worth it for long runs; costs a minute up front)
    seed: int = 1337
    threads: int = 0  # intra-op threads per worker; 0: this node's cores / local workers
    log_every: int = 10
    summary_file: str = ""  # rank 0 writes the JSON summary here as well as to stdout

    def __post_init__(self) -> None:
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {self.precision!r}")
        if self.steps < 1 or self.batch_size < 1 or self.grad_accum < 1:
            raise ValueError("steps, batch_size and grad_accum must be at least 1")
        if self.checkpoint_every < 0:
            raise ValueError("checkpoint_every must be 0 or more")

    @property
    def tokens_per_step_per_worker(self) -> int:
        return self.batch_size * self.grad_accum * self.model.seq_len

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TrainConfig:
        raw = json.loads(text)
        model = ModelConfig(**raw.pop("model", {}))
        return cls(model=model, **raw)

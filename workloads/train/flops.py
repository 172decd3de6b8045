"""Model FLOPs per token and MFU, counted the way the PaLM appendix and nanoGPT do.

Per token, forward + backward: 6 FLOPs per matmul weight (2 forward, 4 backward) plus the attention
score and value products, 12 x layers x d_model x seq_len. Embedding lookups are not matmuls and are not
counted; the tied output head is.
"""

from __future__ import annotations

from .config import ModelConfig


def matmul_params(cfg: ModelConfig) -> int:
    per_layer = 12 * cfg.d_model * cfg.d_model  # qkv 3d^2 + proj d^2 + mlp 8d^2
    return cfg.n_layers * per_layer + cfg.vocab_size * cfg.d_model


def flops_per_token(cfg: ModelConfig) -> float:
    """Training FLOPs per token. The causal mask is not discounted, as in the usual MFU formula."""
    return 6 * matmul_params(cfg) + 12 * cfg.n_layers * cfg.d_model * cfg.seq_len


def mfu(tokens_per_s: float, cfg: ModelConfig, peak_flops: float) -> float:
    """Model FLOPs utilisation: achieved model FLOP/s over the peak of all devices used."""
    return tokens_per_s * flops_per_token(cfg) / peak_flops

"""Training data generated offline: two-digit additions written out character by character.

A corpus a small model can actually learn (the format at once, the carries with time), made from a seed
so every worker and every restart sees the same text, with nothing downloaded. Batches are a pure function
of (seed, step, micro-batch, rank), so a resumed run continues on exactly the batches it would have seen.
"""

from __future__ import annotations

import random

import torch

ALPHABET = "0123456789+=\n"


def generate_corpus(n_chars: int, seed: int, max_operand: int = 99) -> str:
    """Lines like `47+8=55` until the text holds at least `n_chars` characters."""
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    while total < n_chars:
        a, b = rng.randint(0, max_operand), rng.randint(0, max_operand)
        line = f"{a}+{b}={a + b}\n"
        lines.append(line)
        total += len(line)
    return "".join(lines)


_TO_IDS = bytes.maketrans(ALPHABET.encode(), bytes(range(len(ALPHABET))))


def encode(text: str) -> torch.Tensor:
    # bytes.translate maps every character in C; a Python loop over a million characters takes seconds
    ids = bytearray(text.encode("ascii").translate(_TO_IDS))
    return torch.frombuffer(ids, dtype=torch.uint8).long()


def decode(tokens: torch.Tensor) -> str:
    return "".join(ALPHABET[int(t)] for t in tokens)


class TokenBatches:
    """Random windows of the token stream; `batch(step, micro, rank)` is deterministic."""

    def __init__(self, tokens: torch.Tensor, seq_len: int, batch_size: int, seed: int):
        if tokens.numel() <= seq_len + 1:
            raise ValueError(f"corpus of {tokens.numel()} tokens is too short for windows of {seq_len}")
        self.tokens = tokens
        self.seq_len = seq_len
        self.batch_size = batch_size
        self.seed = seed
        self._offsets = torch.arange(seq_len + 1)

    def batch(self, step: int, micro: int = 0, rank: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        """Inputs and next-token targets, each (batch_size, seq_len)."""
        gen = torch.Generator().manual_seed(hash((self.seed, step, micro, rank)) & 0x7FFF_FFFF_FFFF)
        starts = torch.randint(0, self.tokens.numel() - self.seq_len - 1, (self.batch_size,), generator=gen)
        windows = self.tokens[starts[:, None] + self._offsets]  # one gather, no Python loop per sample
        return windows[:, :-1].contiguous(), windows[:, 1:].contiguous()


def default_batches(seq_len: int, batch_size: int, seed: int, n_chars: int = 1_000_000) -> TokenBatches:
    return TokenBatches(encode(generate_corpus(n_chars, seed)), seq_len, batch_size, seed)

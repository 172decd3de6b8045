"""Model and batch presets per hardware class: a Job trains a model worth the GPU it runs on.

`--preset auto` picks the preset of this node's class (workloads.bench.capability); a named preset is taken as
given. Sizes follow GPT-2's small/medium/large shapes (d_model, layers, heads) at a context that keeps each
GPU's tensor cores busy; the batch is per worker and fits the class's memory with bf16/fp16 activations and
AdamW state in fp32 (parameters x 16 bytes): small ~85 M matmul parameters (1.4 GB of state) on a 16 GB T4,
large ~0.7 B (11 GB) on an 80 GB part.
"""

from __future__ import annotations

import dataclasses

from .config import ModelConfig, TrainConfig

PRESETS: dict[str, tuple[ModelConfig, int]] = {
    # the bundled default: seconds per step on a CPU node
    "tiny": (ModelConfig(vocab_size=64, seq_len=128, n_layers=4, n_heads=8, d_model=512), 8),
    "small": (ModelConfig(vocab_size=64, seq_len=1024, n_layers=12, n_heads=12, d_model=768), 8),
    "medium": (ModelConfig(vocab_size=64, seq_len=1024, n_layers=24, n_heads=16, d_model=1024), 8),
    "large": (ModelConfig(vocab_size=64, seq_len=2048, n_layers=24, n_heads=16, d_model=1536), 8),
}
NAMES = ("auto", *PRESETS)


def preset_for_class(hardware_class: str) -> str:
    """The preset of a hardware class (a catalog key, or a MIG instance's `<part>-mig-<profile>`)."""
    if hardware_class.startswith("cpu") or "-mig-1g" in hardware_class or "-mig-2g" in hardware_class:
        return "tiny"
    if "-mig-" in hardware_class or hardware_class in ("t4", "a10g"):
        return "small"
    if hardware_class in ("l40s", "a100-40gb-sxm", "a100-40gb-pcie"):
        return "medium"
    return "large"  # 80 GB and larger parts: A100 80 GB, H100, H200


def apply_preset(cfg: TrainConfig, name: str, hardware_class: str | None, given: frozenset[str] = frozenset()
                 ) -> TrainConfig:
    """`cfg` with the preset's model shape and per-worker batch, except the fields in `given` (asked for
    explicitly, e.g. `--batch-size`), which keep their values from `cfg`."""
    if name == "auto":
        if hardware_class is None:
            return cfg
        name = preset_for_class(hardware_class)
    model, batch = PRESETS[name]
    model = dataclasses.replace(model, **{f.name: getattr(cfg.model, f.name) for f in dataclasses.fields(model)
                                          if f.name in given})
    return dataclasses.replace(cfg, model=model, batch_size=cfg.batch_size if "batch_size" in given else batch)

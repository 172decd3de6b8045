"""What each hardware class must deliver: datasheet peaks, the fraction a healthy node reaches, and sources.

GPU figures are dense (no structured sparsity) tensor-core peaks from the vendor's datasheet for the SXM or
PCIe part named. Floors are `peak x pass fraction`; the fractions sit below what healthy parts measure in
practice (cuBLAS bf16 GEMM reaches ~70-80% of dense peak on H100/A100, a device copy ~85-90% of HBM bandwidth,
NCCL all-reduce bus bandwidth ~70-80% of the per-direction NVLink figure).

CPU nodes get no absolute figures: core counts, clocks, SIMD width and memory channels vary too much. Their
floors come from a baseline measured on known-good hardware (`sahab bench --save-baseline`), and their
"peak" for MFU is the node's own measured bf16 GEMM throughput.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

TERA = 1e12
GB = 1e9


@dataclass(frozen=True)
class HardwareClass:
    name: str
    bf16_flops: float | None  # dense tensor peak per device, FLOP/s; None: no bf16 tensor path
    fp16_flops: float | None
    memory_bytes_per_s: float | None  # device memory bandwidth
    link_bytes_per_s: float | None  # per-device, per-direction interconnect used by all-reduce
    link: str
    source: str
    # fractions of the peak a healthy node must reach (floor = peak x fraction)
    gemm_fraction: float = 0.60
    memory_fraction: float = 0.70
    allreduce_fraction: float = 0.55
    train_mfu_floor: float = 0.20  # the bench probe's small model on one device; the trainer aims higher
    mfu_target: float = 0.45  # what the bundled trainer should reach at scale on this class
    baseline_fraction: float = 0.75  # against a saved baseline: pass at >= 75% of the known-good value

    @property
    def is_gpu(self) -> bool:
        return self.name != "cpu"

    def peak_flops(self, precision: str) -> float | None:
        return {"bf16": self.bf16_flops, "fp16": self.fp16_flops}.get(precision)


CATALOG: dict[str, HardwareClass] = {
    c.name: c
    for c in (
        HardwareClass(
            "h100-sxm", 989.4 * TERA, 989.4 * TERA, 3.35e12, 450 * GB, "NVLink 4 (900 GB/s bidirectional)",
            "NVIDIA H100 Tensor Core GPU datasheet, SXM5 80GB column (dense = half the sparsity figure)",
        ),
        HardwareClass(
            "h200", 989.4 * TERA, 989.4 * TERA, 4.8e12, 450 * GB, "NVLink 4 (900 GB/s bidirectional)",
            "NVIDIA H200 Tensor Core GPU datasheet, SXM 141GB column",
        ),
        HardwareClass(
            "h100-pcie", 756.5 * TERA, 756.5 * TERA, 2.0e12, 64 * GB, "PCIe Gen5 x16",
            "NVIDIA H100 Tensor Core GPU datasheet, PCIe 80GB column",
        ),
        HardwareClass(
            "a100-sxm", 312 * TERA, 312 * TERA, 2.039e12, 300 * GB, "NVLink 3 (600 GB/s bidirectional)",
            "NVIDIA A100 Tensor Core GPU datasheet, 80GB SXM column",
        ),
        HardwareClass(
            "a100-pcie", 312 * TERA, 312 * TERA, 1.935e12, 32 * GB, "PCIe Gen4 x16",
            "NVIDIA A100 Tensor Core GPU datasheet, 80GB PCIe column",
        ),
        HardwareClass(
            "l40s", 362.05 * TERA, 362.05 * TERA, 864 * GB, 32 * GB, "PCIe Gen4 x16",
            "NVIDIA L40S datasheet (dense FP16/BF16 tensor with FP32 accumulate)",
        ),
        HardwareClass(
            "a10g", 70 * TERA, 70 * TERA, 600 * GB, 16 * GB, "PCIe Gen4 x8 as exposed on EC2 G5",
            "AWS EC2 G5 documentation and NVIDIA A10 datasheet; NVIDIA publishes no A10G sheet, so the "
            "tensor figure is approximate",
        ),
        HardwareClass(
            "t4", None, 65 * TERA, 320 * GB, 16 * GB, "PCIe Gen3 x16",
            "NVIDIA T4 datasheet (Turing: FP16 tensor cores, no bf16)",
        ),
        HardwareClass(
            "cpu", None, None, None, None, "loopback / host network",
            "no absolute figures: measured against a baseline saved on known-good hardware",
            # shared and virtualised CPUs wander by 20-30% between healthy runs; contention costs 2x or more
            baseline_fraction=0.60,
        ),
    )
}

class UnknownHardware(LookupError):
    """A device the catalog has no figures for: it cannot be judged, so it is not guessed at."""


# Substrings of torch.cuda.get_device_name() -> class, most specific first.
_GPU_NAMES = (
    ("H200", "h200"),
    ("H100 PCIe", "h100-pcie"),
    ("H100", "h100-sxm"),
    ("A100-PCIE", "a100-pcie"),
    ("A100 PCIe", "a100-pcie"),
    ("A100", "a100-sxm"),
    ("L40S", "l40s"),
    ("A10G", "a10g"),
    ("T4", "t4"),
)


def classify_gpu(device_name: str) -> str | None:
    """The catalog class of a CUDA device name, or None for a GPU the catalog does not know."""
    for needle, name in _GPU_NAMES:
        if needle.lower() in device_name.lower():
            return name
    return None


def detect() -> tuple[str, str]:
    """(hardware class, device description) of this node."""
    import torch

    if torch.cuda.is_available():
        device_name = torch.cuda.get_device_name(0)
        name = classify_gpu(device_name)
        if name is None:
            raise UnknownHardware(f"GPU {device_name!r} is not in the hardware catalog")
        return name, f"{torch.cuda.device_count()} x {device_name}"
    return "cpu", f"{cpu_count()} x {cpu_model()}"


def cpu_count() -> int:
    """Cores this process may run on (the container's cpuset, not the host's)."""
    return len(os.sched_getaffinity(0))


def cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def cpu_has_fast_bf16() -> bool:
    """AVX512-BF16 or AMX: oneDNN then runs bf16 matmuls at 2x (or far more) the fp32 rate."""
    return bool(cpu_flags() & {"avx512_bf16", "amx_bf16"})

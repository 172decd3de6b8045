"""What each hardware class must deliver: datasheet peaks, the fraction a healthy node reaches, and sources.

GPU figures are dense (no structured sparsity) tensor-core peaks from the vendor's datasheet for the SXM or
PCIe part named. Floors are `peak x pass fraction`; the fractions sit below what healthy parts measure in
practice (cuBLAS bf16 GEMM reaches ~70-80% of dense peak on H100/A100, a device copy ~85-90% of HBM bandwidth,
NCCL all-reduce bus bandwidth ~70-80% of the per-direction NVLink figure).

CPU nodes are classed by their widest matrix instructions (capability.py decides which one a node is):
AVX2-only, AVX-512, AVX512-BF16 and AMX. A class has a compute precision (bf16 only where the CPU has a
native bf16 path; everything else runs fp32, since emulated bf16 is ~40x slower than fp32 on AVX2) and a
GEMM floor per core in that precision, set low (a fraction of what one vCPU, often one SMT thread, peaks at
2 GHz) so that it only catches a node that is badly broken or throttled. Memory and the rest vary too much
between CPU parts for absolute figures: those floors come from a baseline measured on known-good hardware
(`sahab bench --save-baseline`). The "peak" for MFU on a CPU is the node's own measured GEMM throughput in
its precision.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

TERA = 1e12
GFLOP = 1e9
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
    # CPU classes only: GEMM floors per core (FLOP/s) in the class's precision and in fp32
    gemm_floor_per_core: float | None = None
    fp32_floor_per_core: float | None = None
    cpu_precision: str = "fp32"  # CPU classes: the precision every probe, peak and MFU uses

    @property
    def is_gpu(self) -> bool:
        return not self.name.startswith("cpu")

    @property
    def precision(self) -> str:
        """The precision this class computes in: its tensor path on GPU, its native path on CPU."""
        if self.is_gpu:
            return "bf16" if self.bf16_flops else "fp16"
        return self.cpu_precision

    def peak_flops(self, precision: str) -> float | None:
        return {"bf16": self.bf16_flops, "fp16": self.fp16_flops}.get(precision)


def _cpu_class(name: str, precision: str, gemm_per_core: float | None, fp32_per_core: float | None,
               source: str) -> HardwareClass:
    return HardwareClass(
        name, None, None, None, None, "loopback / host network", source,
        # shared and virtualised CPUs wander by 20-30% between healthy runs; contention costs 2x or more
        baseline_fraction=0.60,
        gemm_floor_per_core=gemm_per_core, fp32_floor_per_core=fp32_per_core, cpu_precision=precision,
    )


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
        # Per-core floors: FMA FLOP/cycle of one vCPU (an SMT thread shares its core's units) x 2 GHz, then
        # roughly a third of that. Measured for scale: fp32 ~32 GFLOP/s per core on an AVX2 EPYC (issue 17),
        # bf16 ~215 GFLOP/s per vCPU on Zen 4 (AVX512-BF16), ~500 per vCPU with AMX (Sapphire Rapids VM).
        _cpu_class(
            "cpu-avx2", "fp32", 10 * GFLOP, 10 * GFLOP,
            "AVX2 + FMA (2 x 256-bit FMA: 32 fp32 FLOP/cycle per core); no native bf16: runs fp32",
        ),
        _cpu_class(
            "cpu-avx512", "fp32", 20 * GFLOP, 20 * GFLOP,
            "AVX-512F (up to 2 x 512-bit FMA: 64 fp32 FLOP/cycle per core); no native bf16: runs fp32",
        ),
        _cpu_class(
            "cpu-avx512-bf16", "bf16", 40 * GFLOP, 20 * GFLOP,
            "AVX512-BF16 (VDPBF16PS: twice the fp32 rate in oneDNN); runs bf16",
        ),
        _cpu_class(
            "cpu-amx", "bf16", 100 * GFLOP, 20 * GFLOP,
            "AMX-BF16 tiles (TDPBF16PS: 1024 bf16 FLOP/cycle per core); runs bf16",
        ),
        _cpu_class(
            "cpu-generic", "fp32", None, None,
            "a CPU of none of the x86 classes above (e.g. Arm): no absolute figures, baseline floors only; "
            "bf16 only where a measured check finds it faster than fp32",
        ),
    )
}

CPU_CLASSES = tuple(name for name in CATALOG if name.startswith("cpu"))

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


def cpu_count() -> int:
    """Cores this process may run on (the container's cpuset, not the host's)."""
    return len(os.sched_getaffinity(0))


def cpu_flags() -> set[str]:
    """The kernel's CPU flags (`flags` on x86, `Features` on Arm)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
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

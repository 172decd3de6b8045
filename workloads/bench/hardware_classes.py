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

import dataclasses
import os
import re
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
    # GPU classes only: what `torch.cuda.get_device_properties` tells them apart by
    memory_gb: float | None = None  # nominal memory (the datasheet's GB)
    sms: int | None = None  # streaming multiprocessors of the whole part

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


# Datasheets (dense tensor figures are half the "with sparsity" figures the sheets print):
_A100 = "NVIDIA A100 Tensor Core GPU datasheet (NVIDIA, 2021), specifications table"
_H100 = "NVIDIA H100 Tensor Core GPU datasheet (NVIDIA, 2023), specifications table"
_H200 = "NVIDIA H200 Tensor Core GPU datasheet (NVIDIA, 2024), specifications table"
# cuBLAS bf16/fp16 GEMM on a healthy part sustains ~70-80% of dense peak on A100/H100 (NVIDIA's own MLPerf-era
# figures; the fractions below leave room under that), a device copy 85-90% of HBM bandwidth.


def _gpu(name: str, flops: float, memory_gb: float, bandwidth: float, sms: int, link: float, link_name: str,
         source: str, bf16: bool = True, **fractions: float) -> HardwareClass:
    return HardwareClass(name, flops if bf16 else None, flops, bandwidth, link, link_name, source,
                         memory_gb=memory_gb, sms=sms, **fractions)


CATALOG: dict[str, HardwareClass] = {
    c.name: c
    for c in (
        _gpu("h100-sxm", 989.4 * TERA, 80, 3.35e12, 132, 450 * GB, "NVLink 4 (900 GB/s bidirectional)",
             f"{_H100}, H100 SXM column: BF16 1,979 TFLOPS with sparsity, 80 GB HBM3 at 3.35 TB/s"),
        _gpu("h100-pcie", 756.5 * TERA, 80, 2.0e12, 114, 64 * GB, "PCIe Gen5 x16",
             f"{_H100}, H100 PCIe column: BF16 1,513 TFLOPS with sparsity, 80 GB HBM2e at 2 TB/s"),
        # Azure NC40ads/NC80adis H100 v5: a PCIe card with 94 GB HBM3, pairs bridged by NVLink
        _gpu("h100-nvl", 835.5 * TERA, 94, 3.9e12, 132, 64 * GB, "PCIe Gen5 x16 (NVLink bridge within a pair)",
             f"{_H100}, H100 NVL column: BF16 1,671 TFLOPS with sparsity, 94 GB HBM3 at 3.9 TB/s"),
        _gpu("h200", 989.4 * TERA, 141, 4.8e12, 132, 450 * GB, "NVLink 4 (900 GB/s bidirectional)",
             f"{_H200}, H200 SXM column: BF16 1,979 TFLOPS with sparsity, 141 GB HBM3e at 4.8 TB/s"),
        _gpu("h200-nvl", 835.5 * TERA, 141, 4.8e12, 132, 64 * GB, "PCIe Gen5 x16 (NVLink bridge)",
             f"{_H200}, H200 NVL column: BF16 1,671 TFLOPS with sparsity, 141 GB HBM3e at 4.8 TB/s"),
        _gpu("a100-80gb-sxm", 312 * TERA, 80, 2.039e12, 108, 300 * GB, "NVLink 3 (600 GB/s bidirectional)",
             f"{_A100}, A100 80GB SXM column: BF16 312 TFLOPS dense, HBM2e at 2,039 GB/s"),
        # AWS p4d.24xlarge, Azure ND96asr_v4
        _gpu("a100-40gb-sxm", 312 * TERA, 40, 1.555e12, 108, 300 * GB, "NVLink 3 (600 GB/s bidirectional)",
             f"{_A100}, A100 40GB SXM column: BF16 312 TFLOPS dense, HBM2 at 1,555 GB/s"),
        # Azure NC A100 v4
        _gpu("a100-80gb-pcie", 312 * TERA, 80, 1.935e12, 108, 32 * GB, "PCIe Gen4 x16",
             f"{_A100}, A100 80GB PCIe column: BF16 312 TFLOPS dense, HBM2e at 1,935 GB/s"),
        _gpu("a100-40gb-pcie", 312 * TERA, 40, 1.555e12, 108, 32 * GB, "PCIe Gen4 x16",
             f"{_A100}, A100 40GB PCIe column: BF16 312 TFLOPS dense, HBM2 at 1,555 GB/s"),
        _gpu("l40s", 362.05 * TERA, 48, 864 * GB, 142, 32 * GB, "PCIe Gen4 x16",
             "NVIDIA L40S GPU datasheet (NVIDIA, 2023): BF16 tensor 362.05 TFLOPS dense (733 with sparsity), "
             "48 GB GDDR6 at 864 GB/s"),
        # GDDR6 parts sustain less of their peak than HBM ones in a long GEMM (clocks fall to the power limit)
        _gpu("a10g", 70 * TERA, 24, 600 * GB, 80, 16 * GB, "PCIe Gen4 x8 as exposed on EC2 G5",
             "AWS EC2 G5 documentation (24 GB A10G, 600 GB/s) and the NVIDIA A10 datasheet; NVIDIA publishes no "
             "A10G sheet, so the tensor figure is approximate", gemm_fraction=0.45, train_mfu_floor=0.12),
        # 70 W: under a long fp16 GEMM the T4 holds well below its 1,590 MHz boost clock, so it sustains about
        # a third of the datasheet's 65 TFLOPS; the floor is a quarter
        _gpu("t4", 65 * TERA, 16, 320 * GB, 40, 16 * GB, "PCIe Gen3 x16",
             "NVIDIA T4 Tensor Core GPU datasheet (NVIDIA, 2019): mixed-precision FP16/FP32 65 TFLOPS, 16 GB "
             "GDDR6 at 320 GB/s, 70 W (Turing: FP16 tensor cores, no bf16)",
             bf16=False, gemm_fraction=0.25, memory_fraction=0.60, train_mfu_floor=0.08),
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


GIB = 1 << 30
# MIG: "NVIDIA A100-SXM4-40GB MIG 1g.5gb" is what CUDA names an instance (the profile: compute slices of 7, GB)
_MIG = re.compile(r"\bMIG\s+(\d)g\.(\d+)gb\b", re.IGNORECASE)
_NAME_GB = re.compile(r"(\d+)\s*GB\b", re.IGNORECASE)
_MIG_CLASS = re.compile(r"^(?P<parent>.+)-mig-(?P<profile>(?P<slices>\d)g\.(?P<gb>\d+)gb)$")
# Memory slices (of 8) a profile's compute slices may come with: a 1g instance has one or two (an 80 GB part
# offers 1g.10gb and 1g.20gb), the others a fixed number (NVIDIA MIG User Guide, "Supported MIG Profiles")
_MIG_MEMORY_SLICES = {1: (1, 2), 2: (2,), 3: (4,), 4: (4,), 7: (8,)}


@dataclass(frozen=True)
class GpuProperties:
    """What `torch.cuda.get_device_properties(i)` reports that tells the GPU classes apart."""

    name: str
    total_memory: int  # bytes
    multi_processor_count: int
    major: int
    minor: int

    @classmethod
    def of(cls, props) -> GpuProperties:
        return cls(str(props.name), int(props.total_memory), int(props.multi_processor_count), int(props.major),
                   int(props.minor))


def _whole_gpu_class(name: str, memory_gib: float, sms: int) -> str | None:
    """The class of a whole (not partitioned) GPU: its family by name, the variant by memory and SM count where
    the name alone does not say (an H100 NVL has 94 GB, a PCIe H100 114 SMs, A100s come with 40 or 80 GB)."""
    upper = name.upper()

    def family(*models: str) -> bool:  # a model name on its own: a GH200 is not an H200, nor an A100X an A100
        return any(re.search(rf"(?<![A-Z0-9]){model}(?![A-Z0-9])", upper) for model in models)

    if family("H200"):
        return "h200-nvl" if "NVL" in upper else "h200"
    if family("H100", "H100L"):  # pci.ids calls the NVL part H100L
        if "NVL" in upper or memory_gib > 85:
            return "h100-nvl"
        return "h100-pcie" if "PCIE" in upper or sms == CATALOG["h100-pcie"].sms else "h100-sxm"
    if family("A100"):
        return f"a100-{'80gb' if memory_gib > 48 else '40gb'}-{'pcie' if 'PCIE' in upper else 'sxm'}"
    if family("L40S"):
        return "l40s"
    if family("A10G"):
        return "a10g"
    if family("T4"):
        return "t4"
    return None


def classify_gpu(props: GpuProperties) -> str | None:
    """The catalog class of one CUDA device, or None for a GPU the catalog does not know. A MIG instance is a
    class of its own, `<part>-mig-<profile>`, judged on its share of the part (hardware_class)."""
    mig = _MIG.search(props.name)
    if not mig:
        return _whole_gpu_class(props.name, props.total_memory / GIB, props.multi_processor_count)
    slices, profile_gb = int(mig.group(1)), int(mig.group(2))
    part = _mig_part(props.name[:mig.start()], slices, profile_gb)
    return None if part is None else f"{part}-mig-{slices}g.{profile_gb}gb"


def _mig_part(part_name: str, slices: int, profile_gb: int) -> str | None:
    """The class of the GPU a MIG instance is cut from: by the memory its name gives, else the part whose memory
    the profile is a share of ("NVIDIA H100 PCIe MIG 1g.20gb" is two eighths of an 80 GB part, not one of 160)."""
    named = _NAME_GB.search(part_name)
    if named:
        return _whole_gpu_class(part_name, int(named.group(1)) * 1e9 / GIB, 0)
    for memory_slices in _MIG_MEMORY_SLICES.get(slices, ()):
        part = _whole_gpu_class(part_name, profile_gb * 8 / memory_slices * 1e9 / GIB, 0)
        # a profile's GB is its share of the part's memory, rounded: 1g.12gb of a 94 GB H100 NVL
        if part is not None and abs(CATALOG[part].memory_gb * memory_slices / 8 - profile_gb) < 1:
            return part
    return None


def hardware_class(name: str, sms: int | None = None) -> HardwareClass:
    """The class called `name`: a catalog entry, or a MIG instance's share of its part. A MIG instance has the
    part's compute scaled by its SMs (`sms` as the device reports them; else its compute slices of 7), memory
    bandwidth by its share of the part's memory (an instance gets the memory controllers of its memory slices:
    NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles"), and no NVLink or peer access."""
    if name in CATALOG:
        return CATALOG[name]
    match = _MIG_CLASS.match(name)
    if not match or match["parent"] not in CATALOG:
        raise UnknownHardware(f"no hardware class {name!r} in the catalog")
    part = CATALOG[match["parent"]]
    slices, gb = int(match["slices"]), int(match["gb"])
    compute = sms / part.sms if sms and part.sms else slices / 7
    memory = min(1.0, gb / part.memory_gb) if part.memory_gb else slices / 7
    return dataclasses.replace(
        part, name=name,
        bf16_flops=part.bf16_flops * compute if part.bf16_flops else None,
        fp16_flops=part.fp16_flops * compute if part.fp16_flops else None,
        memory_bytes_per_s=part.memory_bytes_per_s * memory if part.memory_bytes_per_s else None,
        link_bytes_per_s=None, link="none: a MIG instance has no NVLink or peer-to-peer access",
        source=f"{part.source}; MIG {match['profile']}: {compute:.3f} of its compute, {memory:.3f} of its memory "
               "bandwidth (NVIDIA Multi-Instance GPU User Guide, supported profiles)",
        memory_gb=gb, sms=sms or (round(part.sms * compute) if part.sms else None))


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

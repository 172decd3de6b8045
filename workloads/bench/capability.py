"""What this node computes fast, decided once: its hardware class and the precision every probe, peak and
MFU uses.

On GPU the catalog class decides (bf16 tensor cores, else fp16). On a CPU the class comes from its flags,
read twice: by the kernel (/proc/cpuinfo) and by torch's own CPU detection (cpuinfo library, the one ATen
dispatches on). bf16 is only fast with a native path (AVX512-BF16 or AMX): without one, oneDNN emulates it
at ~1/40 of the fp32 rate (AVX2), so those CPUs run fp32 throughout. Where the two readings disagree, or a
oneDNN ISA cap is set, or the CPU is of no known class, a short measured check (bf16 against fp32 GEMM,
capped at about half a second on any CPU) decides.

Tests and operators inject a capability with SAHAB_CPU_FLAGS="avx2 fma" (the flags both readings then
report), or by passing the flag sets to `detect_cpu`; torchrun workers inherit the variable. Unset or empty, it
injects nothing and the real flags are read (an empty value is how a caller clears an inherited injection); a
value that is not flags as /proc/cpuinfo spells them is refused, never read as a CPU of no class.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..errors import ConfigError
from .hardware_classes import (
    CATALOG,
    GpuProperties,
    UnknownHardware,
    classify_gpu,
    cpu_count,
    cpu_flags,
    cpu_model,
    hardware_class,
)

FLAGS_ENV = "SAHAB_CPU_FLAGS"
# A JSON file of recorded `torch.cuda.get_device_properties` (a list of {name, total_memory,
# multi_processor_count, major, minor}): the node is classified as those GPUs; with no CUDA device here the
# probes then run on the CPU at that class's precision (how the GPU paths are exercised without a GPU).
GPU_PROPERTIES_ENV = "SAHAB_GPU_PROPERTIES"
ISA_CAP_ENVS = ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")  # oneDNN uses no ISA above these
MEASURED_CHECK_BUDGET_S = 0.5
BF16_FAST_RATIO = 1.3  # bf16 counts as native when its GEMM beats fp32 by this much

# CPU classes, most capable first: (class, flags it needs).
_CPU_CLASSES = (
    ("cpu-amx", {"amx_bf16", "amx_tile"}),
    ("cpu-avx512-bf16", {"avx512_bf16"}),
    ("cpu-avx512", {"avx512f"}),
    ("cpu-avx2", {"avx2", "fma"}),
)
# torch's names (torch._C._cpu._get_cpu_capability()) for the flags the kernel spells differently
_TORCH_NAMES = {"avx512_f": "avx512f", "fma3": "fma"}


@dataclass(frozen=True)
class Capability:
    hardware_class: str  # a CATALOG key
    device: str  # e.g. "2 x Intel(R) Xeon(R) Processor" or "8 x NVIDIA H100 80GB HBM3"
    precision: str  # bf16 / fp16 / fp32: what every probe, peak and MFU uses
    source: str  # catalog (GPU) / flags / measured / injected
    detail: str  # why, in a few words
    sms: int | None = None  # GPU: SMs of each device (a MIG instance's share of its part)
    gpus: int = 0  # CUDA devices the probes run on (0: recorded GPU properties, no CUDA device here)

    @property
    def device_type(self) -> str:
        return "cpu" if self.hardware_class.startswith("cpu") else "cuda"

    @property
    def devices(self) -> list[str]:
        """The torch devices every probe runs on: each visible GPU, or this CPU."""
        return [f"cuda:{i}" for i in range(self.gpus)] or ["cpu"]

    @property
    def hardware(self):
        return hardware_class(self.hardware_class, self.sms)

    def to_json(self) -> dict:
        return {"source": self.source, "detail": self.detail}


def classify_cpu(flags: Iterable[str]) -> str:
    """The CPU class of a set of flags (kernel or torch spelling)."""
    have = {_TORCH_NAMES.get(f, f) for f in flags}
    for name, needs in _CPU_CLASSES:
        if needs <= have:
            return name
    return "cpu-generic"


def injected_flags() -> set[str] | None:
    """The flags SAHAB_CPU_FLAGS injects; None when it is unset or empty (the real flags are read then)."""
    raw = os.environ.get(FLAGS_ENV, "")
    if not raw.strip():
        return None
    flags = set(raw.replace(",", " ").split())
    if not flags or not all(re.fullmatch(r"[a-z0-9_]+", flag) for flag in flags):
        raise ConfigError(FLAGS_ENV, f"{raw!r} is not allowed; allowed: CPU flags as /proc/cpuinfo spells them, "
                                     "separated by spaces or commas (e.g. \"avx2 fma\"), or empty to read this CPU's")
    return flags


def torch_cpu_flags() -> set[str]:
    """The flags torch's own CPU detection reports as present (kernel spelling where they differ)."""
    try:
        import torch

        found = torch._C._cpu._get_cpu_capability()
    except (ImportError, AttributeError, RuntimeError):
        return set()
    return {_TORCH_NAMES.get(k, k) for k, v in found.items() if v is True}


def measure_bf16_is_fast(budget_s: float = MEASURED_CHECK_BUDGET_S) -> tuple[bool, str]:
    """bf16 against fp32 GEMM on one small shape. Each side gets half the budget; one 512^3 bf16 call
    is ~0.35 s at the emulated rate of an AVX2 core, so the whole check stays near `budget_s` anywhere."""
    from .gemm import gemm_flops

    fp32 = gemm_flops("fp32", budget_s=budget_s / 2, shapes=((512, 512, 512),))
    bf16 = gemm_flops("bf16", budget_s=budget_s / 2, shapes=((512, 512, 512),))
    fast = bf16 >= BF16_FAST_RATIO * fp32
    return fast, f"measured bf16 {bf16 / 1e9:.0f} vs fp32 {fp32 / 1e9:.0f} GFLOP/s"


def detect_cpu(
    cpuinfo: Iterable[str] | None = None,
    torch_flags: Iterable[str] | None = None,
    measure: Callable[[], tuple[bool, str]] = measure_bf16_is_fast,
) -> Capability:
    """Class and precision of this CPU. Pass the flag sets to inject them (tests); by default the kernel's
    and torch's readings, or SAHAB_CPU_FLAGS for both."""
    source = "flags"
    injected = injected_flags() if cpuinfo is None and torch_flags is None else None
    if injected is not None:
        cpuinfo = torch_flags = injected
        source = "injected"
    elif cpuinfo is not None or torch_flags is not None:
        source = "injected"
    kernel = set(cpu_flags() if cpuinfo is None else cpuinfo)
    seen_by_torch = set(torch_cpu_flags() if torch_flags is None else torch_flags)
    name = classify_cpu(kernel)
    by_torch = classify_cpu(seen_by_torch) if seen_by_torch else name
    capped = [env for env in ISA_CAP_ENVS if os.environ.get(env)]
    hw = CATALOG[name]
    device = f"{cpu_count()} x {cpu_model()}"
    if by_torch == name and not capped and name != "cpu-generic":
        detail = f"{name} from {'injected ' if source == 'injected' else ''}flags"
        return Capability(name, device, hw.precision, source, detail)
    # ambiguous: what the hardware really does decides
    fast, measured = measure()
    why = (f"oneDNN capped by {', '.join(capped)}" if capped
           else f"kernel reports {name}, torch {by_torch}" if by_torch != name
           else "no known CPU class")
    return Capability(name, device, "bf16" if fast else "fp32", "measured", f"{why}; {measured}")


def gpu_properties() -> list[GpuProperties]:
    """Every visible CUDA device's properties, or the recorded ones SAHAB_GPU_PROPERTIES names."""
    recorded = os.environ.get(GPU_PROPERTIES_ENV)
    if recorded:
        import json

        try:
            with open(recorded) as f:
                devices = [GpuProperties(**device) for device in json.load(f)]
        except (OSError, ValueError, TypeError) as exc:
            raise UnknownHardware(f"{GPU_PROPERTIES_ENV}={recorded}: not a list of recorded GPU properties "
                                  f"(name, total_memory, multi_processor_count, major, minor): {exc}") from exc
        if not devices:
            raise UnknownHardware(f"{GPU_PROPERTIES_ENV}={recorded}: no GPU recorded")
        return devices
    import torch

    return [GpuProperties.of(torch.cuda.get_device_properties(i)) for i in range(torch.cuda.device_count())]


def detect_gpu(devices: list[GpuProperties] | None = None, visible: int | None = None) -> Capability:
    """The class of this node's GPUs (all of one class, or it cannot be judged as one node)."""
    devices = gpu_properties() if devices is None else devices
    classes = {d.name: classify_gpu(d) for d in devices}
    unknown = sorted(name for name, cls in classes.items() if cls is None)
    if unknown:
        raise UnknownHardware(f"GPU {unknown[0]!r} is not in the hardware catalog")
    if len(set(classes.values())) > 1:
        raise UnknownHardware(f"GPUs of different classes on one node ({', '.join(sorted(set(classes.values())))})")
    name = next(iter(classes.values()))
    sms = min(d.multi_processor_count for d in devices)
    hw = hardware_class(name, sms)
    if visible is None:
        import torch

        visible = torch.cuda.device_count() if torch.cuda.is_available() else 0
    source = "injected" if os.environ.get(GPU_PROPERTIES_ENV) else "catalog"
    tensor = "bf16" if hw.bf16_flops else "fp16 (no bf16 tensor cores)"
    return Capability(name, f"{len(devices)} x {devices[0].name}", hw.precision, source,
                      f"{name}: {tensor} tensor path, {sms} SMs", sms=sms, gpus=min(visible, len(devices)))


@functools.cache
def _detected() -> Capability:
    import torch

    if os.environ.get(GPU_PROPERTIES_ENV) or torch.cuda.is_available():
        return detect_gpu()
    return detect_cpu()


def detect() -> Capability:
    """This node's capability, decided once per process (the measured check never runs twice)."""
    return _detected()


def peak_flops(precision: str | None = None, budget_s: float = 2.0) -> float | None:
    """Per-device peak FLOP/s that MFU is reported against, in `precision` (default: this node's own):
    the catalog's dense peak on GPU, this CPU's measured GEMM rate (within `budget_s`) on CPU."""
    cap = detect()
    precision = precision or cap.precision
    if cap.device_type == "cuda":
        return cap.hardware.peak_flops(precision)
    from .gemm import gemm_flops

    return gemm_flops(precision, budget_s=budget_s)


def resolve_precision(requested: str, device_type: str) -> str:
    """`auto` becomes what this node computes fast; bf16 / fp32 are taken as asked."""
    if requested != "auto":
        return requested
    try:
        return detect().precision
    except UnknownHardware:  # a GPU the catalog does not know: ask torch rather than guess
        import torch

        if device_type == "cuda":
            return "bf16" if torch.cuda.is_bf16_supported(including_emulation=False) else "fp16"
        raise

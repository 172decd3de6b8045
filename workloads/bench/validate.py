"""Measure this node, set a floor for every probe, and decide pass or fail.

Floors come from three places:
- the hardware catalog (GPU classes): datasheet peak x the class's pass fraction;
- a baseline saved on known-good hardware of the same class (`--save-baseline` / `--baseline`): the
  known-good value x the class's baseline fraction. This is how CPU nodes are judged;
- the node itself for the data loader: it must produce samples faster than a training step consumes them.
Across a fleet, `fleet.py` adds the median-outlier rule on top.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from workloads.bench.catalog import CATALOG, HardwareClass, cpu_count, detect

DATALOADER_HEADROOM = 2.0  # the loader must outrun the step by this factor, or the device waits on data
PROBE_ORDER = ("gemm", "gemm_fp32", "memory_bandwidth", "allreduce", "train_step", "dataloader")


@dataclass
class ProbeResult:
    value: float | None
    unit: str
    floor: float | None = None
    passed: bool = True
    floor_source: str = ""  # catalog / baseline / node / none
    extra: dict = field(default_factory=dict)

    def shortfall(self) -> float:
        """How far below its floor, as a fraction of the floor (0 when not below)."""
        if self.floor is None or self.value is None or self.value >= self.floor:
            return 0.0
        return 1 - self.value / self.floor


@dataclass
class NodeResult:
    node: str
    hardware_class: str
    device: str
    probes: dict[str, ProbeResult]
    seconds: float = 0.0
    baseline: str | None = None

    @property
    def passed(self) -> bool:
        return all(p.passed for p in self.probes.values())

    def failures(self) -> list[str]:
        return [
            f"{name}: {p.value:.4g} {p.unit} is {p.shortfall():.0%} below its {p.floor_source} floor of "
            f"{p.floor:.4g} {p.unit}"
            for name, p in self.probes.items()
            if not p.passed and p.value is not None and p.floor is not None
        ]

    def to_json(self) -> dict:
        probes = {}
        for name, p in self.probes.items():
            entry = {"value": _round(p.value), "unit": p.unit, "floor": _round(p.floor), "passed": p.passed,
                     "floor_source": p.floor_source}
            entry.update(p.extra)
            probes[name] = entry
        return {
            "node": self.node,
            "hardware_class": self.hardware_class,
            "device": self.device,
            "probes": probes,
            "passed": self.passed,
            "seconds": round(self.seconds, 1),
            "baseline": self.baseline,
        }

    @classmethod
    def from_json(cls, raw: dict) -> NodeResult:
        probes = {}
        for name, entry in raw["probes"].items():
            entry = dict(entry)
            core = {k: entry.pop(k) for k in ("value", "unit", "floor", "passed")}
            probes[name] = ProbeResult(**core, floor_source=entry.pop("floor_source", ""), extra=entry)
        return cls(raw["node"], raw["hardware_class"], raw.get("device", ""), probes,
                   raw.get("seconds", 0.0), raw.get("baseline"))


def _round(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.5g}")


# -- baselines -------------------------------------------------------------------------------------------


class BaselineError(ValueError):
    pass


def save_baseline(result: NodeResult, path: Path) -> None:
    """Record a known-good node's measured values; the file is what later runs are judged against."""
    raw = {
        "hardware_class": result.hardware_class,
        "device": result.device,
        "node": result.node,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "values": {name: p.value for name, p in result.probes.items() if p.value is not None},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(raw, indent=2) + "\n")
    tmp.replace(path)


def load_baseline(path: Path, hardware_class: str) -> dict[str, float]:
    try:
        raw = json.loads(path.read_text())
        values = {str(k): float(v) for k, v in raw["values"].items()}
        saved_class = raw["hardware_class"]
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror}") from exc
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BaselineError(f"{path}: not a Sahab baseline file ({exc})") from exc
    if saved_class != hardware_class:
        raise BaselineError(
            f"{path}: baseline was measured on {saved_class}, this node is {hardware_class}"
        )
    return values


# -- floors ----------------------------------------------------------------------------------------------


def catalog_floor(name: str, hw: HardwareClass, extra: dict, flops_per_token: float) -> float | None:
    """Absolute floor from the datasheet, in the probe's unit; None where the catalog has no figure."""
    if not hw.is_gpu:
        return None
    peak = hw.peak_flops("bf16") or hw.peak_flops("fp16")
    if name == "gemm" and peak:
        return peak * hw.gemm_fraction / 1e9
    if name == "memory_bandwidth" and hw.memory_bytes_per_s:
        return hw.memory_bytes_per_s * hw.memory_fraction / 1e9
    if name == "allreduce" and hw.link_bytes_per_s and extra.get("ranks", 0) >= 2:
        return hw.link_bytes_per_s * hw.allreduce_fraction / 1e9
    if name == "train_step" and peak:
        return peak * hw.train_mfu_floor / flops_per_token
    return None


def judge(
    measurements: dict,
    hw: HardwareClass,
    baseline: dict[str, float] | None,
    flops_per_token: float,
) -> dict[str, ProbeResult]:
    """Attach floors and verdicts to raw measurements (name -> probes.Measurement)."""
    results: dict[str, ProbeResult] = {}
    for name in PROBE_ORDER:
        if name not in measurements:
            continue
        m = measurements[name]
        floors: list[tuple[float, str]] = []
        if (f := catalog_floor(name, hw, m.extra, flops_per_token)) is not None:
            floors.append((f, "catalog"))
        if baseline and name in baseline and name != "dataloader":
            floors.append((baseline[name] * hw.baseline_fraction, "baseline"))
        if name == "dataloader" and "train_step" in measurements:
            consumed = measurements["train_step"].extra.get("samples_per_s")
            if consumed:
                floors.append((consumed * DATALOADER_HEADROOM, "step"))
        floor, source = max(floors) if floors else (None, "none")
        passed = m.value is None or floor is None or m.value >= floor
        results[name] = ProbeResult(m.value, m.unit, floor, passed, source, dict(m.extra))
    return results


# -- the whole validation ---------------------------------------------------------------------------------


def run_validation(
    baseline_path: Path | None = None,
    probes: tuple[str, ...] = PROBE_ORDER,
    on_probe=None,
) -> NodeResult:
    """Run the probes on this node and judge them. `on_probe(name)` is called as each one starts."""
    import torch

    from workloads.bench import probes as p
    from workloads.train.flops import flops_per_token

    started = time.perf_counter()
    hw_name, device_desc = detect()
    hw = CATALOG[hw_name]
    baseline = load_baseline(baseline_path, hw_name) if baseline_path else None
    device = "cuda" if torch.cuda.is_available() else "cpu"
    cores = cpu_count()
    if device == "cpu":
        torch.set_num_threads(cores)
    precision = "bf16" if (not hw.is_gpu or hw.bf16_flops) else "fp16"

    measured: dict = {}

    def step(name, fn):
        if name in probes:
            if on_probe:
                on_probe(name)
            measured[name] = fn()

    step("gemm", lambda: p.gemm(precision, device))
    step("gemm_fp32", lambda: p.gemm("fp32", device))
    step("memory_bandwidth", lambda: p.memory_bandwidth(device))
    step("allreduce", lambda: p.allreduce(device, cores))
    # MFU against the catalog peak on GPU; on CPU against this node's own best measured GEMM rate
    peak = hw.peak_flops(precision)
    if peak is None and "gemm" in measured:
        peak = max(m.value for k, m in measured.items() if k.startswith("gemm")) * 1e9
    step("train_step", lambda: p.train_step(device, peak))
    step("dataloader", lambda: p.dataloader(device))

    fpt = flops_per_token(p.probe_train_config(device).model)
    results = judge(measured, hw, baseline, fpt)
    return NodeResult(
        node=socket.gethostname(),
        hardware_class=hw_name,
        device=device_desc,
        probes=results,
        seconds=time.perf_counter() - started,
        baseline=str(baseline_path) if baseline_path else None,
    )


def peak_flops_from(result: NodeResult) -> float | None:
    """The per-device peak the trainer should report MFU against, from a validation run."""
    hw = CATALOG[result.hardware_class]
    if hw.is_gpu:
        return hw.peak_flops("bf16") or hw.peak_flops("fp16")
    rates = [r.value for k, r in result.probes.items() if k.startswith("gemm") and r.value]
    return max(rates) * 1e9 if rates else None


def result_to_text(result: NodeResult) -> str:
    lines = [f"node {result.node} ({result.hardware_class}: {result.device})"]
    for name, p in result.probes.items():
        value = "n/a" if p.value is None else f"{p.value:,.4g} {p.unit}"
        floor = "no floor" if p.floor is None else f"floor {p.floor:,.4g} ({p.floor_source})"
        verdict = "PASS" if p.passed else f"FAIL ({p.shortfall():.0%} short)"
        lines.append(f"  {name:<17} {value:>22}   {floor:<34} {verdict}")
    lines.append(f"{'PASSED' if result.passed else 'FAILED'} in {result.seconds:.1f} s")
    return "\n".join(lines)


"""Measure this node, set a floor for every probe, and decide pass or fail.

Floors come from three places:
- the hardware catalog (GPU classes): datasheet peak x the class's pass fraction;
- a baseline saved on known-good hardware of the same class (`--save-baseline` / `--baseline`): the
  known-good value x the class's baseline fraction. This is how CPU nodes are judged;
- the node itself for the data loader: it must produce samples faster than a training step consumes them.
Across a fleet, `fleet.py` adds the median-outlier rule on top.

Verdicts: pass, fail, or inconclusive. The whole run keeps a hard time budget (60 s unless told otherwise);
a probe that falls short while other processes held the node's CPUs (busy.py), or that the budget cut
short, cannot condemn the hardware: the node is "inconclusive: node busy", to be validated again later.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..outputs import write_atomic
from .busy import BUSY_SHARE, BusyMeter
from .hardware_classes import HardwareClass, cpu_count, hardware_class
from .timing import OutOfTime, Stopped, Termination, hard_limit

DATALOADER_HEADROOM = 2.0  # the loader must outrun the step by this factor, or the device waits on data
PROBE_ORDER = ("gemm", "gemm_fp32", "memory_bandwidth", "allreduce", "train_step", "dataloader")
PROBE_UNITS = {"gemm": "GFLOP/s", "gemm_fp32": "GFLOP/s", "memory_bandwidth": "GB/s", "allreduce": "GB/s",
               "train_step": "tokens/s", "dataloader": "samples/s"}
# (nominal budget, least worth starting with), seconds: the all-reduce pays for starting two processes
PROBE_BUDGETS = {"gemm": (3.0, 1.0), "gemm_fp32": (2.0, 0.8), "memory_bandwidth": (3.0, 0.5),
                 "allreduce": (20.0, 6.0), "train_step": (12.0, 3.0), "dataloader": (3.0, 0.5)}
DEFAULT_TIME_BUDGET_S = 60.0
# a probe's own soft deadlines come first; the hard stop (twice its budget, within the run's) only catches
# what overruns them, e.g. set-up work that a busy node slows down
HARD_LIMIT_FACTOR = 2.0
EXIT_PASS, EXIT_FAIL, EXIT_INCONCLUSIVE = 0, 1, 3


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
    precision: str = ""  # what every probe, peak and MFU of this run used
    capability: dict = field(default_factory=dict)  # how the precision was decided (capability.py)
    time_budget: float | None = None
    stopped_by: str = ""  # the signal that ended the run before its probes did (SIGTERM)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def verdict(self) -> str:
        return self._judgement()[0]

    @property
    def reason(self) -> str:
        """Why a run is inconclusive ("node busy: ..."); empty otherwise."""
        return self._judgement()[1]

    @property
    def judged(self) -> bool:
        """Some probe was held to a floor of this hardware, the catalog's or a known-good baseline's (a loader
        keeping up with the step, its "step" floor, says nothing of the hardware)."""
        return any(p.floor is not None and p.floor_source != "step" for p in self.probes.values())

    @property
    def measured_in_full(self) -> bool:
        """Every probe ran to its end on a quiet node: the values may stand as a baseline."""
        return self._measured()[0] != "inconclusive"

    def _judgement(self) -> tuple[str, str]:
        verdict, reason = self._measured()
        if verdict == "pass" and not self.judged:  # a node never passes unjudged
            return "inconclusive", (f"nothing judged: {self.hardware_class} has no catalog floors for these probes; "
                                    "judge it against a baseline from a known-good node of its class (--baseline, "
                                    "recorded there with --save-baseline)")
        return verdict, reason

    def _measured(self) -> tuple[str, str]:
        below = {n: p for n, p in self.probes.items() if not p.passed and p.value is not None}
        unmeasured = [n for n, p in self.probes.items() if p.value is None and _cut_short(p)]
        busiest = max((p.extra.get("node_busy") or 0.0 for p in self.probes.values()), default=0.0)
        busy_below = short_while_busy(self.probes)
        if busy_below:
            return "inconclusive", (f"node busy: other processes held {busiest:.0%} of its CPUs while "
                                    f"{', '.join(busy_below)} ran")
        if below:
            return "fail", ""
        if unmeasured and self.stopped_by:
            return "inconclusive", f"stopped by {self.stopped_by}: {', '.join(unmeasured)} not measured"
        if unmeasured:
            if busiest >= BUSY_SHARE:
                return "inconclusive", (f"node busy: other processes held {busiest:.0%} of its CPUs; "
                                        f"{', '.join(unmeasured)} cut short")
            return "inconclusive", f"{', '.join(unmeasured)} cut short by the time budget"
        return "pass", ""

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
            "precision": self.precision,
            "capability": self.capability,
            "device": self.device,
            "probes": probes,
            "passed": self.passed,
            "verdict": self.verdict,
            "reason": self.reason,
            "seconds": round(self.seconds, 1),
            "time_budget": self.time_budget,
            "baseline": self.baseline,
            **({"stopped_by": self.stopped_by} if self.stopped_by else {}),
        }

    @classmethod
    def from_json(cls, raw: dict) -> NodeResult:
        probes = {}
        for name, entry in raw["probes"].items():
            entry = dict(entry)
            core = {k: entry.pop(k) for k in ("value", "unit", "floor", "passed")}
            probes[name] = ProbeResult(**core, floor_source=entry.pop("floor_source", ""), extra=entry)
        return cls(raw["node"], raw["hardware_class"], raw.get("device", ""), probes,
                   raw.get("seconds", 0.0), raw.get("baseline"), raw.get("precision", ""),
                   raw.get("capability", {}), raw.get("time_budget"), raw.get("stopped_by", ""))


def _round(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.5g}")


def _cut_short(p: ProbeResult) -> bool:
    return bool(p.extra.get("cut_short"))


def short_while_busy(probes: dict[str, ProbeResult]) -> list[str]:
    """The probes that fell below their floor while other processes held the node: once there is one, the run is
    inconclusive whatever the others measure."""
    return [n for n, p in probes.items()
            if not p.passed and p.value is not None and (p.extra.get("node_busy") or 0.0) >= BUSY_SHARE]


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
    write_atomic(path, json.dumps(raw, indent=2) + "\n")


Baseline = tuple[str, dict[str, float]]  # the hardware class a baseline was measured on, and its values


def read_baseline(path: Path) -> Baseline:
    """A baseline file as it was saved. Needs no torch, so a file that is missing or not a baseline is refused
    before anything heavy loads."""
    try:
        raw = json.loads(path.read_text())
        return raw["hardware_class"], {str(k): float(v) for k, v in raw["values"].items()}
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror}") from exc
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BaselineError(f"{path}: not a Sahab baseline file ({exc})") from exc


def load_baseline(path: Path, hardware_class: str, saved: Baseline | None = None) -> dict[str, float]:
    """The baseline's values, if it was measured on `hardware_class` (`saved`: what read_baseline gave)."""
    saved_class, values = saved or read_baseline(path)
    if saved_class != hardware_class:
        raise BaselineError(
            f"{path}: baseline was measured on {saved_class}, this node is {hardware_class}"
        )
    return values


# -- floors ----------------------------------------------------------------------------------------------


def catalog_floor(name: str, hw: HardwareClass, extra: dict, flops_per_token: float) -> float | None:
    """Absolute floor from the datasheet, in the probe's unit; None where the catalog has no figure."""
    if not hw.is_gpu:
        per_core = {"gemm": hw.gemm_floor_per_core, "gemm_fp32": hw.fp32_floor_per_core}.get(name)
        return per_core * extra.get("threads", 1) / 1e9 if per_core else None
    peak = hw.peak_flops(hw.precision)
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
        # a probe cut short is neither at nor above its floor
        cut = bool(m.extra.get("cut_short"))
        passed = not cut and (m.value is None or floor is None or m.value >= floor)
        results[name] = ProbeResult(m.value, m.unit, floor, passed, source, dict(m.extra))
    return results


# -- the whole validation ---------------------------------------------------------------------------------


def run_validation(
    baseline_path: Path | None = None,
    probes: tuple[str, ...] = PROBE_ORDER,
    on_probe=None,
    time_budget: float = DEFAULT_TIME_BUDGET_S,
    capability=None,
) -> NodeResult:
    """Run the probes on this node within `time_budget` seconds and judge them.

    `on_probe(name)` is called as each one starts; `capability` (capability.Capability) overrides what
    this node is detected as. A probe that no longer fits in what is left of the budget is not started; on SIGTERM
    the probe running is stopped and none starts after it (the result is inconclusive, `stopped_by` says why). Once
    a probe falls short on a busy node the verdict is settled (inconclusive) and no probe starts after it either: the
    node is handed back at once, to be validated again later, instead of being measured for nothing."""
    with Termination() as termination:
        return _validate(termination, baseline_path, probes, on_probe, time_budget, capability)


def _validate(termination: Termination, baseline_path: Path | None, probes: tuple[str, ...], on_probe,
              time_budget: float, capability) -> NodeResult:
    saved = read_baseline(baseline_path) if baseline_path else None
    import torch

    from ..train.flops import flops_per_token
    from . import probes as p
    from .capability import detect

    started = time.perf_counter()
    deadline = started + time_budget
    cap = capability or detect()
    hw = cap.hardware
    baseline = load_baseline(baseline_path, cap.hardware_class, saved) if baseline_path else None
    devices = cap.devices  # every visible GPU; the CPU on a CPU node (or for recorded GPU properties)
    device = "cuda" if devices[0].startswith("cuda") else "cpu"
    cores = cpu_count()
    if device == "cpu":
        torch.set_num_threads(cores)
    # a per-device probe gets more time on a multi-GPU node, each device a share of it
    spread = min(len(devices), 2)
    rehearsal = cap.device_type == "cuda" and device == "cpu"  # recorded GPU properties, probed on this CPU

    fpt = flops_per_token(p.probe_train_config(device, rehearsal).model)
    measured: dict = {}
    settled: list[str] = []  # the probes that fell short on a busy node, once one has

    def step(name, fn, per_device: bool = False, **facts):
        # `facts` (the precision a probe runs at) are reported even when the probe is cut short
        if name not in probes:
            return
        nominal, least = PROBE_BUDGETS[name]
        if per_device:
            fn = on_every_device(fn, devices)
            nominal *= spread
        if termination.signal:
            measured[name] = p.cut_short(PROBE_UNITS[name], f"not started: stopped by {termination.signal}", **facts)
            return
        if settled:
            measured[name] = p.cut_short(PROBE_UNITS[name], f"not started: {', '.join(settled)} fell short on a busy "
                                                            "node (inconclusive whatever the rest measure)", **facts)
            return
        remaining = deadline - time.perf_counter()
        if remaining < least:
            measured[name] = p.cut_short(PROBE_UNITS[name], f"not started: {remaining:.1f} s of the "
                                                            f"{time_budget:.0f} s budget left", **facts)
            return
        if on_probe:
            on_probe(name)
        budget = min(nominal, remaining)
        with BusyMeter() as meter:
            try:
                limit = min(budget * HARD_LIMIT_FACTOR, remaining)
                with termination.probe(), hard_limit(limit):
                    m = fn(budget)
            except OutOfTime:
                m = p.cut_short(PROBE_UNITS[name], f"stopped after {limit:.0f} s (budget {budget:.0f} s)", **facts)
            except Stopped as stop:
                m = p.cut_short(PROBE_UNITS[name], f"stopped by {stop}", **facts)
        if meter.share is not None:
            m.extra["node_busy"] = round(meter.share, 2)
        measured[name] = m
        settled.extend(short_while_busy(judge(measured, hw, baseline, fpt)))

    step("gemm", lambda d, b: p.gemm(cap.precision, d, cores, b), per_device=True, precision=cap.precision)
    step("gemm_fp32", lambda d, b: p.gemm("fp32", d, cores, b), per_device=True, precision="fp32")
    step("memory_bandwidth", lambda d, b: p.memory_bandwidth(d, budget_s=b), per_device=True)
    step("allreduce", lambda b: p.allreduce(device, cores, budget_s=b))
    # MFU against the catalog peak on GPU; on CPU against this node's measured GEMM rate in its precision
    peak = hw.peak_flops(cap.precision)
    if peak is None and measured.get("gemm") and measured["gemm"].value:
        peak = measured["gemm"].value * 1e9
    step("train_step", lambda d, b: p.train_step(d, peak, cap.precision, budget_s=b, rehearsal=rehearsal),
         per_device=True, precision=cap.precision)
    step("dataloader", lambda b: p.dataloader(device, budget_s=b))

    results = judge(measured, hw, baseline, fpt)
    return NodeResult(
        node=socket.gethostname(),
        hardware_class=cap.hardware_class,
        device=cap.device,
        probes=results,
        seconds=time.perf_counter() - started,
        baseline=str(baseline_path) if baseline_path else None,
        precision=cap.precision,
        capability=cap.to_json(),
        time_budget=time_budget,
        stopped_by=termination.signal,
    )


def on_every_device(probe, devices: list[str]):
    """Run `probe(device, budget)` on each device in turn, a share of the budget each; the node is the slowest
    of them (a slow GPU among eight must not pass because GPU 0 is fine). Every device's value is kept."""
    def run(budget: float):
        results = [probe(d, budget / len(devices)) for d in devices]
        if len(results) == 1:
            return results[0]
        cut = [m for m in results if m.value is None]
        worst_index = min(range(len(results)), key=lambda i: float("-inf") if results[i].value is None
                          else results[i].value)
        worst = cut[0] if cut else results[worst_index]
        worst.extra["per_device"] = {d: _round(m.value) for d, m in zip(devices, results, strict=True)}
        worst.extra["slowest_device"] = devices[worst_index]
        return worst
    return run


def peak_flops_from(result: NodeResult) -> float | None:
    """The per-device peak the trainer should report MFU against, from a validation run."""
    hw = hardware_class(result.hardware_class)
    if hw.is_gpu:
        return hw.peak_flops(result.precision or hw.precision)
    gemm = result.probes.get("gemm")  # measured in the node's precision
    return gemm.value * 1e9 if gemm and gemm.value else None


def result_to_text(result: NodeResult) -> str:
    how = result.capability.get("detail", "")
    lines = [f"node {result.node} ({result.hardware_class}: {result.device})",
             f"precision {result.precision}" + (f" ({how})" if how else "")]
    for name, p in result.probes.items():
        value = "n/a" if p.value is None else f"{p.value:,.4g} {p.unit}"
        floor = "no floor" if p.floor is None else f"floor {p.floor:,.4g} ({p.floor_source})"
        if _cut_short(p):
            verdict = f"CUT SHORT ({p.extra['cut_short']})"
        else:
            verdict = "PASS" if p.passed else f"FAIL ({p.shortfall():.0%} short)"
        lines.append(f"  {name:<17} {value:>22}   {floor:<34} {verdict}")
    verdict = {"pass": "PASSED", "fail": "FAILED"}.get(result.verdict, f"INCONCLUSIVE: {result.reason}")
    lines.append(f"{verdict} in {result.seconds:.1f} s")
    return "\n".join(lines)


def exit_code(result: NodeResult) -> int:
    return {"pass": EXIT_PASS, "fail": EXIT_FAIL}.get(result.verdict, EXIT_INCONCLUSIVE)


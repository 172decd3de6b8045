"""One decision of what a node computes fast, forced for each CPU class by injecting its flags, and probes
that keep their time budgets on a CPU where a precision is slow."""

from __future__ import annotations

import time

import pytest
import torch
from sahab.workloads.bench import capability, gemm, probes
from sahab.workloads.bench.capability import FLAGS_ENV, classify_cpu, detect_cpu
from sahab.workloads.bench.hardware_classes import CATALOG, CPU_CLASSES
from sahab.workloads.bench.validate import (
    EXIT_FAIL,
    EXIT_INCONCLUSIVE,
    EXIT_PASS,
    NodeResult,
    exit_code,
    judge,
    peak_flops_from,
    result_to_text,
)

pytestmark = pytest.mark.alone  # budgets judged against the clock

AVX2 = {"sse4_2", "avx", "avx2", "fma"}  # AMD EPYC before Zen 4, Xeons before Cooper Lake
AVX512 = AVX2 | {"avx512f", "avx512bw", "avx512vl"}  # Skylake/Cascade Lake
AVX512_BF16 = AVX512 | {"avx512_bf16"}  # Zen 4, Cooper Lake
AMX = AVX512_BF16 | {"amx_bf16", "amx_tile", "amx_int8"}  # Sapphire Rapids and later


def _never_measured():
    raise AssertionError("flags were unambiguous: no measured check should run")


@pytest.mark.parametrize(
    ("flags", "expected_class", "precision"),
    [(AVX2, "cpu-avx2", "fp32"), (AVX512, "cpu-avx512", "fp32"),
     (AVX512_BF16, "cpu-avx512-bf16", "bf16"), (AMX, "cpu-amx", "bf16")],
)
def test_each_cpu_class_gets_its_precision_from_its_flags(flags, expected_class, precision):
    cap = detect_cpu(cpuinfo=flags, torch_flags=flags, measure=_never_measured)
    assert (cap.hardware_class, cap.precision) == (expected_class, precision)
    assert cap.source == "injected"
    assert CATALOG[expected_class].precision == precision


def test_torch_spelling_of_flags_classifies_the_same():
    torch_style = {"avx2", "fma3", "avx512_f", "avx512_bf16"}  # torch._C._cpu._get_cpu_capability() keys
    assert classify_cpu(torch_style) == "cpu-avx512-bf16"
    assert classify_cpu({"fp", "asimd", "bf16"}) == "cpu-generic"  # an Arm server: no x86 class


def test_the_catalog_knows_every_cpu_class_with_floors():
    assert set(CPU_CLASSES) == {"cpu-avx2", "cpu-avx512", "cpu-avx512-bf16", "cpu-amx", "cpu-generic"}
    floors = [CATALOG[c].gemm_floor_per_core for c in ("cpu-avx2", "cpu-avx512", "cpu-avx512-bf16", "cpu-amx")]
    assert all(floors) and floors == sorted(floors)  # each class must do more than the one below
    assert not CATALOG["cpu-generic"].gemm_floor_per_core  # no figures to hold an unknown CPU to


@pytest.mark.parametrize("fast", [True, False])
def test_ambiguous_flags_are_settled_by_a_measured_check(fast):
    """The kernel sees AVX512-BF16, torch's detection does not (e.g. a hypervisor masking CPUID leaves)."""
    calls = []

    def measure():
        calls.append(1)
        return fast, "measured bf16 x vs fp32 y GFLOP/s"

    cap = detect_cpu(cpuinfo=AVX512_BF16, torch_flags=AVX512, measure=measure)
    assert calls == [1]
    assert cap.source == "measured" and cap.precision == ("bf16" if fast else "fp32")
    assert cap.hardware_class == "cpu-avx512-bf16" and "torch cpu-avx512" in cap.detail


def test_a_onednn_isa_cap_makes_the_flags_ambiguous(monkeypatch):
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    cap = detect_cpu(cpuinfo=AMX, torch_flags=AMX, measure=lambda: (False, "measured"))
    assert cap.precision == "fp32" and "ONEDNN_MAX_CPU_ISA" in cap.detail


def test_the_environment_injects_the_capability_for_every_process(monkeypatch):
    monkeypatch.setenv(FLAGS_ENV, "avx avx2 fma")
    cap = detect_cpu(measure=_never_measured)
    assert (cap.hardware_class, cap.precision, cap.source) == ("cpu-avx2", "fp32", "injected")


def test_the_measured_check_keeps_its_cap_even_where_bf16_is_emulated(monkeypatch):
    _slow_bf16(monkeypatch)
    started = time.perf_counter()
    fast, detail = capability.measure_bf16_is_fast(budget_s=0.5)
    elapsed = time.perf_counter() - started
    assert not fast and "bf16" in detail
    assert elapsed < 0.5 + 0.5  # the budget, plus at most one 512^3 call at the emulated rate


def _slow_bf16(monkeypatch, gflops: float = 0.75):
    """bf16 GEMMs as an AVX2 core runs them (~0.75 GFLOP/s, issue 17); fp32 stays real."""
    real_mm = torch.mm

    def mm(a, b):
        if a.dtype == torch.bfloat16:
            time.sleep(2 * a.shape[0] * a.shape[1] * b.shape[1] / (gflops * 1e9))
            return torch.empty(a.shape[0], b.shape[1], dtype=a.dtype)
        return real_mm(a, b)

    monkeypatch.setattr(gemm.torch, "mm", mm)


def test_the_gemm_probe_skips_shapes_that_would_break_its_budget(monkeypatch):
    _slow_bf16(monkeypatch)
    started = time.perf_counter()
    rate = gemm.measure_gemm("bf16", budget_s=3.0)
    elapsed = time.perf_counter() - started
    # each of the three shapes would take 3 s or more a call at this rate: none is started
    assert rate.shapes_skipped == len(gemm.CPU_SHAPES) and rate.shapes_measured == 0
    assert rate.flops == pytest.approx(0.75e9, rel=0.5)
    assert elapsed < 3.0


def test_a_training_step_that_cannot_fit_its_budget_is_cut_short_not_run():
    started = time.perf_counter()
    m = probes.train_step("cpu", peak_flops=1e9, precision="bf16", budget_s=10.0)  # ~40 s a step at 1 GFLOP/s
    assert m.value is None and "a step would take" in m.extra["cut_short"]
    assert time.perf_counter() - started < 1.0  # decided from the prediction, nothing was run


@pytest.mark.slow
def test_an_allreduce_that_outlives_its_budget_is_stopped():
    started = time.perf_counter()
    m = probes.allreduce("cpu", cores=2, budget_s=0.5)  # two fresh processes cannot even import torch in time
    assert m.value is None and "not done within" in m.extra["cut_short"]
    assert time.perf_counter() - started < 0.5 + 5.0  # the budget plus stopping the ranks


def _result(precision="fp32", busy=0.0, gemm_value=100.0, cut=False):
    measurements = {
        "gemm": probes.Measurement(gemm_value, "GFLOP/s", {"threads": 2, "node_busy": busy}),
        "train_step": probes.Measurement(None, "tokens/s", {"cut_short": "budget"}) if cut
        else probes.Measurement(1000.0, "tokens/s", {"node_busy": busy}),
    }
    hw = CATALOG["cpu-avx2"]
    return NodeResult("n", hw.name, "2 x EPYC", judge(measurements, hw, None, 1e8), precision=precision)


def test_verdicts_pass_fail_and_inconclusive():
    assert exit_code(healthy := _result()) == EXIT_PASS and healthy.verdict == "pass"
    # 10 GFLOP/s on 2 AVX2 cores is below the catalog floor (2 x 10): a quiet node that is slow fails
    slow = _result(gemm_value=10.0)
    assert slow.verdict == "fail" and exit_code(slow) == EXIT_FAIL
    assert slow.failures()[0].startswith("gemm: 10 GFLOP/s is 50% below its catalog floor")
    # the same figure while others held most of the CPUs says nothing about the hardware
    busy = _result(gemm_value=10.0, busy=0.7)
    assert busy.verdict == "inconclusive" and exit_code(busy) == EXIT_INCONCLUSIVE
    assert busy.reason.startswith("node busy: other processes held 70% of its CPUs")
    assert "INCONCLUSIVE: node busy" in result_to_text(busy)
    cut = _result(cut=True)
    assert cut.verdict == "inconclusive" and "train_step cut short" in cut.reason
    assert NodeResult.from_json(busy.to_json()).verdict == "inconclusive"


def test_mfu_peak_is_the_gemm_rate_of_the_precision_used():
    result = _result(gemm_value=87.5)
    assert peak_flops_from(result) == pytest.approx(87.5e9)
    gpu = NodeResult("g", "t4", "1 x T4", {}, precision="fp16")
    assert peak_flops_from(gpu) == CATALOG["t4"].fp16_flops


def test_the_trainer_runs_fp32_on_an_avx2_cpu_and_bf16_on_amx(monkeypatch, tmp_path):
    from sahab.workloads.train.config import ModelConfig, TrainConfig
    from sahab.workloads.train.distributed import DistEnv
    from sahab.workloads.train.trainer import Trainer

    cfg = TrainConfig(model=ModelConfig(vocab_size=16, seq_len=16, n_layers=1, n_heads=2, d_model=32),
                      checkpoint_dir=str(tmp_path), precision="auto")
    env = DistEnv(0, 0, 1, 1, 0, torch.device("cpu"))
    for flags, precision in ((AVX2, "fp32"), (AMX, "bf16")):
        cap = detect_cpu(cpuinfo=flags, torch_flags=flags, measure=_never_measured)
        monkeypatch.setattr(capability, "detect", lambda cap=cap: cap)
        assert Trainer(cfg, env, None).precision == precision


def test_a_probe_that_overruns_is_stopped_and_the_run_is_inconclusive(monkeypatch):
    """However a probe gets stuck (here: Python that never returns), the run keeps its budget."""
    from sahab.workloads.bench import validate

    def stuck(*args, **kwargs):
        while True:
            time.sleep(0.01)

    monkeypatch.setattr(probes, "gemm", stuck)
    monkeypatch.setitem(validate.PROBE_BUDGETS, "gemm", (0.5, 0.2))  # a second's hard stop, not the nominal six
    cap = detect_cpu(cpuinfo=AVX2, torch_flags=AVX2, measure=_never_measured)
    result = validate.run_validation(probes=("gemm",), time_budget=20.0, capability=cap)
    nominal = validate.PROBE_BUDGETS["gemm"][0]
    assert result.verdict == "inconclusive" and "gemm cut short" in result.reason
    assert result.probes["gemm"].extra["cut_short"].startswith("stopped after")
    assert result.seconds < nominal * validate.HARD_LIMIT_FACTOR + 0.5


@pytest.mark.parametrize("others", [0.8, 0.0])
def test_a_probe_short_on_a_busy_node_settles_the_run_and_no_probe_starts_after_it(monkeypatch, others):
    """Inconclusive is the only verdict left once a probe falls short while others hold the node: it is handed back
    then, not measured for the rest of its budget. A quiet node that falls short is measured in full."""
    from sahab.workloads.bench import validate

    class Meter:  # what other processes took of the CPUs while each probe ran
        share = others

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    started = []

    def measured(name, unit):
        def probe(*args, **kwargs):
            started.append(name)
            return probes.Measurement(1.0, unit, {"threads": 2})  # far below every floor of a 2-core AVX2 node
        return probe

    monkeypatch.setattr(validate, "BusyMeter", Meter)
    for name, unit in (("gemm", "GFLOP/s"), ("memory_bandwidth", "GB/s"), ("allreduce", "GB/s"),
                       ("train_step", "tokens/s"), ("dataloader", "samples/s")):
        monkeypatch.setattr(probes, name, measured(name, unit))
    cap = detect_cpu(cpuinfo=AVX2, torch_flags=AVX2, measure=_never_measured)
    result = validate.run_validation(capability=cap)
    if others:
        assert started == ["gemm"] and result.verdict == "inconclusive"
        assert result.reason == "node busy: other processes held 80% of its CPUs while gemm ran"
        for name in validate.PROBE_ORDER[1:]:
            assert result.probes[name].value is None
            assert result.probes[name].extra["cut_short"].startswith("not started: gemm fell short on a busy node")
        assert result.probes["gemm_fp32"].extra["precision"] == "fp32"  # what it would have run at, still said
    else:
        assert started == ["gemm", "gemm", "memory_bandwidth", "allreduce", "train_step", "dataloader"]
        assert result.verdict == "fail" and result.failures()[0].startswith("gemm: 1 GFLOP/s is")

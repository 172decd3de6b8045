"""Floors, verdicts, baselines, the catalog and the fleet rules, on hand-made measurements."""

from __future__ import annotations

import json
import re

import pytest
from sahab.workloads.bench.hardware_classes import CATALOG, CPU_CLASSES
from sahab.workloads.bench.peer_outliers import failing_nodes, outliers
from sahab.workloads.bench.probes import Measurement, bus_bandwidth
from sahab.workloads.bench.report import render
from sahab.workloads.bench.validate import (
    BaselineError,
    NodeResult,
    ProbeResult,
    judge,
    load_baseline,
    save_baseline,
)

GPU_CLASSES = ("h100-sxm", "h100-pcie", "h100-nvl", "h200", "h200-nvl", "a100-80gb-sxm", "a100-40gb-sxm",
               "a100-80gb-pcie", "a100-40gb-pcie", "l40s", "a10g", "t4")


def test_catalog_has_every_class_with_sourced_figures():
    assert set(CATALOG) == {*GPU_CLASSES, *CPU_CLASSES}
    for name in GPU_CLASSES:
        hw = CATALOG[name]
        assert hw.peak_flops("bf16") or hw.peak_flops("fp16"), name
        assert hw.memory_bytes_per_s and hw.link_bytes_per_s and hw.source, name
        assert 0 < hw.gemm_fraction < 1 and 0 < hw.memory_fraction < 1
    assert CATALOG["t4"].bf16_flops is None  # Turing has no bf16 tensor cores
    assert CATALOG["h100-sxm"].bf16_flops > CATALOG["a100-80gb-sxm"].bf16_flops > CATALOG["a10g"].bf16_flops


def test_bus_bandwidth_follows_nccl_tests():
    # 1 GB in 0.1 s over 8 ranks: algbw 10 GB/s, busbw 10 x 2 x 7/8
    assert bus_bandwidth(10**9, 0.1, 8) == pytest.approx(17.5e9)
    assert bus_bandwidth(10**9, 0.1, 2) == pytest.approx(10e9)


def _measurements(scale: float = 1.0) -> dict:
    return {
        "gemm": Measurement(600_000 * scale, "GFLOP/s"),
        "memory_bandwidth": Measurement(2_900 * scale, "GB/s"),
        "allreduce": Measurement(360 * scale, "GB/s", {"ranks": 8}),
        "train_step": Measurement(300_000 * scale, "tokens/s", {"samples_per_s": 400.0}),
        "dataloader": Measurement(5_000.0, "samples/s"),
    }


def test_a_healthy_h100_passes_its_catalog_floors():
    results = judge(_measurements(), CATALOG["h100-sxm"], None, flops_per_token=1e9)
    assert all(r.passed for r in results.values())
    assert results["gemm"].floor == pytest.approx(989.4e12 * 0.60 / 1e9)
    assert {r.floor_source for r in results.values()} == {"catalog", "step"}


def test_a_slow_gpu_fails_and_says_by_how_much():
    results = judge(_measurements(scale=0.5), CATALOG["h100-sxm"], None, flops_per_token=1e9)
    node = NodeResult("gpu-7", "h100-sxm", "8 x H100", results)
    assert not node.passed
    failed = {line.split(":")[0] for line in node.failures()}
    assert failed == {"gemm", "memory_bandwidth", "allreduce", "train_step"}
    gemm_line = next(line for line in node.failures() if line.startswith("gemm"))
    assert re.search(r"49% below its catalog floor", gemm_line)  # 300 TFLOP/s against 593.6


def test_a_loader_slower_than_the_step_fails_on_any_hardware():
    slow_loader = {**_measurements(), "dataloader": Measurement(500.0, "samples/s")}
    results = judge(slow_loader, CATALOG["cpu-generic"], None, flops_per_token=1e9)
    assert not results["dataloader"].passed and results["dataloader"].floor == 800.0


def test_a_cpu_of_no_known_class_has_no_absolute_floors_only_baseline_ones(tmp_path):
    cpu = CATALOG["cpu-generic"]
    unjudged = judge(_measurements(), cpu, None, flops_per_token=1e9)
    assert unjudged["gemm"].floor is None and unjudged["gemm"].passed

    node = NodeResult("cpu-1", "cpu-generic", "2 x Graviton", unjudged)
    save_baseline(node, tmp_path / "base.json")
    baseline = load_baseline(tmp_path / "base.json", "cpu-generic")
    assert baseline["gemm"] == 600_000

    again = judge(_measurements(scale=0.9), cpu, baseline, flops_per_token=1e9)
    assert all(r.passed for r in again.values())
    contended = judge(_measurements(scale=0.5), cpu, baseline, flops_per_token=1e9)
    assert not contended["gemm"].passed and contended["gemm"].floor_source == "baseline"


def test_a_baseline_from_other_hardware_or_not_a_baseline_is_refused(tmp_path):
    node = NodeResult("cpu-1", "cpu-generic", "x", judge(_measurements(), CATALOG["cpu-generic"], None, 1e9))
    save_baseline(node, tmp_path / "base.json")
    with pytest.raises(BaselineError, match="measured on cpu-generic, this node is h100-sxm"):
        load_baseline(tmp_path / "base.json", "h100-sxm")
    (tmp_path / "junk.json").write_text("[1, 2]")
    with pytest.raises(BaselineError, match="not a Sahab baseline"):
        load_baseline(tmp_path / "junk.json", "cpu-generic")
    with pytest.raises(BaselineError, match="cannot read"):
        load_baseline(tmp_path / "missing.json", "cpu-generic")


def _node(name: str, gemm: float, hw: str = "a100-80gb-sxm") -> NodeResult:
    floor = 187_200.0
    return NodeResult(name, hw, "8 x A100", {"gemm": ProbeResult(gemm, "GFLOP/s", floor, gemm >= floor)})


def test_fleet_median_flags_the_slow_node_that_still_clears_its_floor():
    fleet = [_node("a", 250_000), _node("b", 248_000), _node("c", 252_000), _node("d", 200_000)]
    found = outliers(fleet)
    assert [(o.node, o.probe) for o in found] == [("d", "gemm")]
    assert fleet[3].passed  # above the catalog floor, yet 20% behind its peers
    assert failing_nodes(fleet) == {"d"}


def test_no_median_rule_without_enough_peers():
    assert outliers([_node("a", 250_000), _node("b", 100_000)]) == []


def test_results_round_trip_through_json():
    node = NodeResult("n", "cpu-generic", "d", judge(_measurements(), CATALOG["cpu-generic"], None, 1e9), seconds=12.5)
    raw = json.loads(json.dumps(node.to_json()))
    assert set(raw) >= {"node", "hardware_class", "probes", "passed"}
    assert set(raw["probes"]["gemm"]) >= {"value", "unit", "floor", "passed"}
    assert NodeResult.from_json(raw).to_json() == raw


def test_fleet_report_shows_every_node_a_chart_per_probe_and_escapes_names():
    fleet = [_node("a", 250_000), _node("b", 248_000), _node("c", 252_000), _node("<d>", 100_000)]
    page = render(fleet)
    assert page.count('src="data:image/png;base64,') == 1  # one probe measured, one chart
    assert "&lt;d&gt;" in page and "<d>" not in page
    assert "2 excluded" not in page and "1 excluded from training" in page

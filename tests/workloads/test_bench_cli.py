"""`sahab bench` as a user runs it: calibrate, re-validate, get caught under contention, report on a fleet."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sahab.workloads.bench.hardware_classes import CATALOG, CPU_CLASSES

from sahab.schema import SCHEMA_VERSION
from tests.workloads.workload_helpers import ROOT, sahab_env

# `alone` where a measured figure is judged against a floor or a budget the other workers' load could trip; the
# failing-node tests accept failed or inconclusive (busy) alike, and the rest measure nothing.
pytestmark = pytest.mark.slow

PROBES = {"gemm", "gemm_fp32", "memory_bandwidth", "allreduce", "train_step", "dataloader"}


def _spin() -> None:
    while True:
        pass


@pytest.fixture
def contention():
    """Two busy processes per core: what a noisy neighbour or a runaway job does to a node."""
    ctx = multiprocessing.get_context("fork")
    hogs = [ctx.Process(target=_spin, daemon=True) for _ in range(2 * len(os.sched_getaffinity(0)))]
    for hog in hogs:
        hog.start()
    yield
    for hog in hogs:
        hog.kill()
        hog.join()


def _calibrate(path: Path) -> dict:
    """Save a baseline on this (known-good) machine at `path`; the JSON of that run."""
    for _ in range(3):  # as an operator would: an inconclusive run (the shared host was busy) is run again
        result = subprocess.run(
            [sys.executable, "-m", "sahab", "bench", "--format", "json", "--save-baseline", str(path)],
            cwd=ROOT, env=sahab_env(), capture_output=True, text=True, timeout=150,
        )  # fmt: skip
        if result.returncode != 3:
            break
        assert not path.exists()  # an inconclusive run saves no baseline
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """A baseline saved on this (known-good) machine, and the JSON of that run."""
    path = tmp_path_factory.mktemp("bench") / "baseline.json"
    return path, _calibrate(path)


@pytest.mark.alone  # the calibration must pass
def test_bench_json_names_every_probe_with_value_unit_floor_and_verdict(calibrated):
    _, raw = calibrated
    assert raw["schemaVersion"] == SCHEMA_VERSION
    assert raw["hardware_class"] in CPU_CLASSES and raw["passed"] is True and raw["verdict"] == "pass"
    hw = CATALOG[raw["hardware_class"]]
    # the report names the class and the one precision every probe and the MFU used
    assert raw["precision"] == raw["probes"]["gemm"]["precision"] == raw["probes"]["train_step"]["precision"]
    assert raw["capability"]["source"] in ("flags", "measured")
    assert set(raw["probes"]) == PROBES
    for name, probe in raw["probes"].items():
        assert {"value", "unit", "floor", "passed"} <= set(probe), name
        assert probe["value"] > 0, name
    # before calibration a CPU is held only to its class's GEMM floor; the loader always to the step
    threads = raw["probes"]["gemm"]["threads"]
    expected = hw.gemm_floor_per_core * threads / 1e9 if hw.gemm_floor_per_core else None
    assert raw["probes"]["gemm"]["floor"] == pytest.approx(expected)
    assert raw["probes"]["memory_bandwidth"]["floor"] is None
    assert raw["probes"]["dataloader"]["floor"] > 0
    assert 0 < raw["probes"]["train_step"]["mfu"] < 1
    assert raw["probes"]["allreduce"]["ranks"] == 2 and raw["probes"]["allreduce"]["backend"] == "gloo"


@pytest.mark.alone  # measured against the baseline
def test_a_healthy_node_passes_against_its_own_baseline(calibrated, run_sahab, tmp_path):
    baseline, _ = calibrated
    result = run_sahab("bench", "--baseline", str(baseline), "--format", "json")
    raw = json.loads(result.stdout)
    assert raw["probes"]["gemm"]["floor_source"] == "baseline"
    if raw["verdict"] == "fail":
        # Measured again before it is condemned, as an operator would: on this shared VM a neighbour on the
        # same physical core can halve both GEMMs for a while without any busy or steal time showing here
        # (a suite run once measured 53% of the baseline calibrated minutes before, node_busy under 35%).
        result = run_sahab("bench", "--baseline", str(baseline), "--format", "json")
        raw = json.loads(result.stdout)
    if raw["verdict"] == "fail":
        # Still short: the host itself may have changed since the module's calibration (memory bandwidth once
        # measured 58% of it twice, minutes later, node_busy 1%: a neighbour on the physical host's memory). The
        # claim holds for a baseline the node saves now: checked against it at once, it must pass.
        fresh = tmp_path / "baseline.json"
        _calibrate(fresh)
        result = run_sahab("bench", "--baseline", str(fresh), "--format", "json")
        raw = json.loads(result.stdout)
    # it passes, or, while the shared test host is busy, it is inconclusive and says why
    _passed_or_busy(result, raw)


def _passed_or_busy(result: subprocess.CompletedProcess, raw: dict) -> None:
    if raw["verdict"] == "pass":
        assert result.returncode == 0
    else:
        figures = {name: (p["value"], p["floor"], p.get("node_busy")) for name, p in raw["probes"].items()}
        assert result.returncode == 3 and raw["reason"].startswith("node busy"), (
            f"{result.stderr[-2000:]}\n(value, floor, node_busy) per probe: {figures}")


@pytest.mark.alone  # within the budget, against the catalog floors
def test_an_avx2_only_cpu_runs_every_probe_in_fp32_within_the_budget(run_sahab):
    """Issue 17: no native bf16, so nothing is measured in bf16 (emulated, ~40x slower than fp32)."""
    result = run_sahab("bench", "--format", "json", env={"SAHAB_CPU_FLAGS": "sse4_2 avx avx2 fma"})
    raw = json.loads(result.stdout)
    _passed_or_busy(result, raw)
    assert (raw["hardware_class"], raw["precision"]) == ("cpu-avx2", "fp32")
    assert raw["capability"]["source"] == "injected"
    assert raw["probes"]["gemm"]["precision"] == "fp32"
    # whatever was measured was measured in fp32 (a probe stopped on a busy host records no precision)
    assert {p.get("precision", "fp32") for p in raw["probes"].values()} == {"fp32"}
    assert raw["probes"]["gemm"]["floor_source"] == "catalog"
    assert raw["seconds"] <= raw["time_budget"] == 60


@pytest.mark.alone  # its busy spinners would slow the other workers' tests; within its budget
def test_a_busy_node_is_inconclusive_within_its_time_budget(calibrated, run_sahab, contention):
    """Issue 14: on a node other processes hold, bench neither fails the hardware nor runs for minutes."""
    baseline, _ = calibrated
    budget = 15  # room for the first probes and a start of the all-reduce (its ranks cut short under contention)
    result = run_sahab("bench", "--baseline", str(baseline), "--time-budget", str(budget), "--format", "json")
    assert result.returncode == 3, result.stdout + result.stderr[-2000:]
    raw = json.loads(result.stdout)
    assert raw["verdict"] == "inconclusive" and raw["passed"] is False
    assert raw["reason"].startswith("node busy: other processes held")
    assert "inconclusive: node busy" in result.stderr
    # the budget holds: at most one probe's last timed call runs past it
    assert raw["seconds"] <= budget + 3
    names = list(raw["probes"])
    short = [n for n in names if raw["probes"][n]["value"] is not None and not raw["probes"][n]["passed"]]
    if short:  # a probe fell short under the contention: that settled the verdict, and no probe started after it
        assert raw["reason"].endswith(f"while {short[0]} ran"), raw["reason"]
        for name in names[names.index(short[0]) + 1:]:
            assert raw["probes"][name]["cut_short"].startswith(f"not started: {short[0]} fell short on a busy node")
    else:  # every probe that ran cleared its floor (a calibration made in a slow spell sets them low): the budget
        # cut the rest, and the reason names them beside the busy share
        unmeasured = [n for n in names if raw["probes"][n]["value"] is None]
        assert unmeasured and raw["reason"].endswith(f"{', '.join(unmeasured)} cut short"), raw["reason"]


def test_train_refuses_a_node_that_fails_validation(calibrated, run_sahab, tmp_path):
    baseline, _ = calibrated
    raised = json.loads(baseline.read_text())
    raised["values"] = {k: v * 10 for k, v in raised["values"].items()}  # "known-good" hardware 10x faster
    (tmp_path / "fast.json").write_text(json.dumps(raised))
    # the first probes fail the raised floors; the rest need not run
    result = run_sahab("train", "--baseline", str(tmp_path / "fast.json"), "--steps", "5", "--time-budget", "10")
    assert result.returncode in (1, 3)  # failed, or inconclusive if the host was busy meanwhile
    assert "not training on it" in result.stderr
    assert "FAIL" in result.stderr and result.stdout == ""  # no training, so no summary line
    seconds = re.search(r"^(?:FAILED|INCONCLUSIVE: .*) in ([\d.]+) s$", result.stderr, re.M)
    assert seconds and float(seconds.group(1)) <= 10 + 3  # the validation kept its budget


def test_a_baseline_from_other_hardware_is_a_usage_error(calibrated, run_sahab, tmp_path):
    baseline, _ = calibrated
    other = json.loads(baseline.read_text()) | {"hardware_class": "h100-sxm"}
    (tmp_path / "h100.json").write_text(json.dumps(other))
    result = run_sahab("bench", "--baseline", str(tmp_path / "h100.json"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith(f"error: --baseline {tmp_path / 'h100.json'}: ")
    assert "h100-sxm" in result.stderr and "Traceback" not in result.stderr


def test_fleet_report_flags_the_slow_node(calibrated, run_sahab, tmp_path):
    _, raw = calibrated
    paths = []
    for i, scale in enumerate((1.0, 1.02, 0.98, 0.6)):
        node = json.loads(json.dumps(raw))
        node["node"] = f"node-{i}"
        for probe in node["probes"].values():
            probe["value"] *= scale
        paths.append(tmp_path / f"node-{i}.json")
        paths[-1].write_text(json.dumps(node))
    html = tmp_path / "fleet.html"
    result = run_sahab("bench", "--fleet-report", str(html), "--results", *map(str, paths))
    assert result.returncode == 1  # a node is excluded
    assert "1 excluded" in result.stdout
    assert "outlier: node-3: gemm" in result.stderr
    page = html.read_text()
    assert page.count("data:image/png;base64,") == len(PROBES) and "node-3" in page


def test_container_entrypoint_stops_a_failing_node_before_torchrun(calibrated, tmp_path):
    """The Job's contract: exit 1 (3 if the host was busy meanwhile), the JSON verdict on stdout and in the
    result file, no training."""
    baseline, _ = calibrated
    raised = json.loads(baseline.read_text())
    raised["values"] = {k: v * 10 for k, v in raised["values"].items()}
    (tmp_path / "fast.json").write_text(json.dumps(raised))
    env = sahab_env() | {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "SAHAB_CHECKPOINT_DIR": str(tmp_path / "ckpt"),
        "SAHAB_BASELINE": str(tmp_path / "fast.json"),
        "SAHAB_BENCH_TIME_BUDGET": "10",  # the first probes fail the raised floors; the rest need not run
        "JOB_COMPLETION_INDEX": "3",
    }
    result = subprocess.run(
        ["sh", str(ROOT / "workloads" / "entrypoint.sh"), "all", "--steps", "5"],
        env=env, capture_output=True, text=True, timeout=150,
    )  # fmt: skip
    assert result.returncode in (1, 3)
    verdict = json.loads(result.stdout.strip().splitlines()[-1])
    assert verdict["passed"] is False
    saved = json.loads((tmp_path / "ckpt" / "validation" / "node-3.json").read_text())
    assert saved["passed"] is False and saved["probes"].keys() == verdict["probes"].keys()
    assert "node 3 was not validated" in result.stderr
    assert not list((tmp_path / "ckpt").glob("ckpt-*.pt"))  # torchrun never started

"""`sahab bench` as a user runs it: calibrate, re-validate, get caught under contention, report on a fleet."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest
from workload_helpers import ROOT, sahab_env

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


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """A baseline saved on this (known-good) machine, and the JSON of that run."""
    path = tmp_path_factory.mktemp("bench") / "baseline.json"
    result = subprocess.run(
        [sys.executable, "-m", "sahab", "bench", "--format", "json", "--save-baseline", str(path)],
        cwd=ROOT, env=sahab_env(), capture_output=True, text=True, timeout=150,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    return path, json.loads(result.stdout)


def test_bench_json_names_every_probe_with_value_unit_floor_and_verdict(calibrated):
    _, raw = calibrated
    assert raw["hardware_class"] == "cpu" and raw["passed"] is True
    assert set(raw["probes"]) == PROBES
    for name, probe in raw["probes"].items():
        assert {"value", "unit", "floor", "passed"} <= set(probe), name
        assert probe["value"] > 0, name
    # a CPU has no absolute floors until it is calibrated; the loader is always held to the step
    assert raw["probes"]["gemm"]["floor"] is None
    assert raw["probes"]["dataloader"]["floor"] > 0
    assert 0 < raw["probes"]["train_step"]["mfu"] < 1
    assert raw["probes"]["allreduce"]["ranks"] == 2 and raw["probes"]["allreduce"]["backend"] == "gloo"


def test_a_healthy_node_passes_against_its_own_baseline(calibrated, run_sahab):
    baseline, _ = calibrated
    result = run_sahab("bench", "--baseline", str(baseline), "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    raw = json.loads(result.stdout)
    assert raw["passed"] and raw["probes"]["gemm"]["floor_source"] == "baseline"


def test_a_node_under_contention_fails_against_its_baseline(calibrated, run_sahab, contention):
    baseline, _ = calibrated
    result = run_sahab("bench", "--baseline", str(baseline))
    assert result.returncode == 1
    failed = [line for line in result.stderr.splitlines() if line.startswith("failed: ")]
    assert any(line.startswith("failed: gemm:") for line in failed), result.stderr[-2000:]
    assert all("below its baseline floor" in line for line in failed)
    assert "FAILED" in result.stdout


def test_train_refuses_a_node_that_fails_validation(calibrated, run_sahab, tmp_path):
    baseline, _ = calibrated
    raised = json.loads(baseline.read_text())
    raised["values"] = {k: v * 10 for k, v in raised["values"].items()}  # "known-good" hardware 10x faster
    (tmp_path / "fast.json").write_text(json.dumps(raised))
    result = run_sahab("train", "--baseline", str(tmp_path / "fast.json"), "--steps", "5")
    assert result.returncode == 1
    assert "not training on it" in result.stderr
    assert "FAIL" in result.stderr and result.stdout == ""  # no training, so no summary line


def test_a_baseline_from_other_hardware_is_a_usage_error(calibrated, run_sahab, tmp_path):
    baseline, _ = calibrated
    other = json.loads(baseline.read_text()) | {"hardware_class": "h100-sxm"}
    (tmp_path / "h100.json").write_text(json.dumps(other))
    result = run_sahab("bench", "--baseline", str(tmp_path / "h100.json"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("error:")
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
    """The Job's contract: exit 1, the JSON verdict on stdout and in the result file, no training."""
    baseline, _ = calibrated
    raised = json.loads(baseline.read_text())
    raised["values"] = {k: v * 10 for k, v in raised["values"].items()}
    (tmp_path / "fast.json").write_text(json.dumps(raised))
    env = sahab_env() | {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "SAHAB_CHECKPOINT_DIR": str(tmp_path / "ckpt"),
        "SAHAB_BASELINE": str(tmp_path / "fast.json"),
        "JOB_COMPLETION_INDEX": "3",
    }
    result = subprocess.run(
        ["sh", str(ROOT / "workloads" / "entrypoint.sh"), "all", "--steps", "5"],
        env=env, capture_output=True, text=True, timeout=150,
    )  # fmt: skip
    assert result.returncode == 1
    verdict = json.loads(result.stdout.strip().splitlines()[-1])
    assert verdict["passed"] is False
    saved = json.loads((tmp_path / "ckpt" / "validation" / "node-3.json").read_text())
    assert saved["passed"] is False and saved["probes"].keys() == verdict["probes"].keys()
    assert "node 3 failed validation" in result.stderr
    assert not list((tmp_path / "ckpt").glob("ckpt-*.pt"))  # torchrun never started

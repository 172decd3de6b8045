"""SAHAB_CPU_FLAGS through `sahab bench`: empty reads the real flags, a malformed value is one error line naming
the variable, and a node whose class has no floors is never passed unjudged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workloads.bench.capability import classify_cpu
from workloads.bench.hardware_classes import cpu_flags

ROOT = Path(__file__).resolve().parents[3]


def bench(*args: str, flags: str | None, probe: str = "gemm") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SAHAB_CPU_FLAGS"}
    if flags is not None:
        env["SAHAB_CPU_FLAGS"] = flags
    return subprocess.run([sys.executable, "-m", "sahab", "bench", "--probes", probe, "--time-budget", "10",
                           "--format", "json", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("flags", ["", "  "])
def test_an_empty_value_reads_this_cpus_own_flags(flags):
    # The class is settled before any probe runs: the loader probe (0.5 s of one core) is the cheapest to show it.
    done = bench(flags=flags, probe="dataloader")
    out = json.loads(done.stdout)
    assert out["capability"]["source"] != "injected", out["capability"]
    assert out["hardware_class"] == classify_cpu(cpu_flags())


@pytest.mark.parametrize("flags", ["avx2;fma", "AVX2 FMA", ",", "avx2 --x", "avx2\u0661"])
def test_a_malformed_value_is_one_error_line_naming_the_variable(flags):
    done = bench(flags=flags)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: SAHAB_CPU_FLAGS: {flags!r} is not allowed; allowed: CPU flags as /proc/cpuinfo")


def test_a_cpu_of_no_known_class_is_never_passed_unjudged_but_a_baseline_judges_it(tmp_path):
    arm = "fp asimd evtstrm aes crc32"  # an Arm server's flags: no class has floors for them
    baseline = tmp_path / "generic.json"
    done = bench("--save-baseline", str(baseline), flags=arm)  # a known-good node records its baseline
    out = json.loads(done.stdout)
    assert out["hardware_class"] == "cpu-generic" and out["probes"]["gemm"]["floor"] is None
    assert done.returncode == 3 and out["verdict"] == "inconclusive", done.stderr
    assert out["reason"].startswith("nothing judged: cpu-generic has no catalog floors")
    assert baseline.is_file(), done.stderr  # unjudged, yet measured in full: a baseline to judge the others by

    judged = json.loads(bench("--baseline", str(baseline), flags=arm).stdout)
    assert judged["probes"]["gemm"]["floor_source"] == "baseline"
    assert not judged["reason"].startswith("nothing judged")

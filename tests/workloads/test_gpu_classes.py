"""Every GPU class judged as what it is: recorded `torch.cuda.get_device_properties` shapes
(tests/fixtures/gpu_properties.json) classified by name, memory and SM count, the floors each class gets, the
slowest of a node's GPUs deciding, and `sahab bench` on recorded properties (the probes then run on this CPU at
the class's precision: a T4's train step in fp16 with a gradient scaler)."""

from __future__ import annotations

import json

import pytest
from sahab.components.accelerators import MIG_LAYOUTS
from sahab.workloads.bench.capability import GPU_PROPERTIES_ENV, detect_gpu
from sahab.workloads.bench.hardware_classes import CATALOG, GpuProperties, UnknownHardware, classify_gpu, hardware_class
from sahab.workloads.bench.probes import Measurement
from sahab.workloads.bench.validate import judge, on_every_device

from tests.workloads.workload_helpers import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "gpu_properties.json"
RECORDINGS = json.loads(FIXTURE.read_text())["recordings"]


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda r: r["class"] or "unknown")
def test_recorded_devices_are_classified_by_name_memory_and_sms(recording):
    (device,) = recording["devices"]
    assert classify_gpu(GpuProperties(**device)) == recording["class"]


def _props(name: str, gib: float, sms: int, major: int = 8) -> GpuProperties:
    return GpuProperties(name, int(gib * (1 << 30)), sms, major, 0)


def test_variants_the_name_does_not_say_are_told_apart_by_memory_and_sms():
    # a driver that names an H100 without its form factor: the PCIe part has 114 SMs, the NVL 94 GB
    assert classify_gpu(_props("NVIDIA H100", 79.6, 114, 9)) == "h100-pcie"
    assert classify_gpu(_props("NVIDIA H100", 93.1, 132, 9)) == "h100-nvl"
    assert classify_gpu(_props("NVIDIA H100", 79.6, 132, 9)) == "h100-sxm"
    assert classify_gpu(_props("NVIDIA A100-SXM4", 39.6, 108)) == "a100-40gb-sxm"
    assert classify_gpu(_props("NVIDIA A100-SXM4", 79.3, 108)) == "a100-80gb-sxm"
    # MIG on an 80 GB part: its profiles are named by their own memory, the part's from the name
    assert classify_gpu(_props("NVIDIA A100-SXM4-80GB MIG 1g.10gb", 9.5, 14)) == "a100-80gb-sxm-mig-1g.10gb"
    assert classify_gpu(_props("NVIDIA H100 80GB HBM3 MIG 1g.10gb", 9.8, 16, 9)) == "h100-sxm-mig-1g.10gb"


@pytest.mark.parametrize(("part", "memory_gb"), [
    ("NVIDIA H100 PCIe", 80), ("NVIDIA H100 NVL", 94), ("NVIDIA H200", 141), ("NVIDIA A100-SXM4", 40),
    ("NVIDIA A100-SXM4", 80)])
def test_every_mig_profile_of_a_part_named_without_its_memory_is_a_share_of_that_part(part, memory_gb):
    # a 1g profile comes with one memory slice or two (1g.10gb and 1g.20gb of an 80 GB part): neither is a slice of
    # a part twice the size
    for profile in {p for layout in MIG_LAYOUTS[memory_gb].values() for p in layout}:
        name = classify_gpu(_props(f"{part} MIG {profile}", 1.0, 16, 9))
        assert name is not None and name.endswith(f"-mig-{profile}"), (part, profile, name)
        assert CATALOG[name.removesuffix(f"-mig-{profile}")].memory_gb == memory_gb, (part, profile, name)


@pytest.mark.parametrize("name", ["NVIDIA GH200 480GB", "NVIDIA GH200 144G HBM3e", "NVIDIA A100X", "NVIDIA A10",
                                  "NVIDIA H20", "NVIDIA GB200", "NVIDIA L40", "NVIDIA GH200 480GB MIG 1g.12gb"])
def test_a_gpu_whose_name_only_contains_a_known_model_is_not_judged_as_that_model(name):
    assert classify_gpu(_props(name, 96.0, 132, 9)) is None


def test_the_p4d_a100_is_judged_against_its_own_40_gb_bandwidth():
    forty, eighty = CATALOG["a100-40gb-sxm"], CATALOG["a100-80gb-sxm"]
    healthy_40gb = Measurement(1350.0, "GB/s")  # ~87% of 1,555 GB/s, what a healthy 40 GB part copies
    assert judge({"memory_bandwidth": healthy_40gb}, forty, None, 1e9)["memory_bandwidth"].passed
    assert not judge({"memory_bandwidth": healthy_40gb}, eighty, None, 1e9)["memory_bandwidth"].passed


def test_the_h100_nvl_is_not_judged_as_sxm():
    nvl, sxm = CATALOG["h100-nvl"], CATALOG["h100-sxm"]
    assert nvl.peak_flops("bf16") < sxm.peak_flops("bf16") and nvl.memory_gb == 94
    gemm = Measurement(0.65 * nvl.peak_flops("bf16") / 1e9, "GFLOP/s")
    assert judge({"gemm": gemm}, nvl, None, 1e9)["gemm"].passed
    assert not judge({"gemm": gemm}, sxm, None, 1e9)["gemm"].passed


def test_a_power_capped_t4_passes_on_fp16_and_a_broken_one_fails():
    t4 = CATALOG["t4"]
    assert t4.precision == "fp16" and t4.peak_flops("bf16") is None
    sustained = Measurement(22_000.0, "GFLOP/s")  # a third of the 65 TFLOPS datasheet figure, at 70 W
    assert judge({"gemm": sustained}, t4, None, 1e9)["gemm"].passed
    assert not judge({"gemm": Measurement(9_000.0, "GFLOP/s")}, t4, None, 1e9)["gemm"].passed


def test_a_mig_slice_is_judged_on_its_share_of_the_part():
    part = CATALOG["a100-40gb-sxm"]
    slice_ = hardware_class("a100-40gb-sxm-mig-1g.5gb", sms=14)
    assert slice_.peak_flops("bf16") == pytest.approx(part.peak_flops("bf16") * 14 / 108)
    assert slice_.memory_bytes_per_s == pytest.approx(part.memory_bytes_per_s / 8)
    assert slice_.link_bytes_per_s is None  # no NVLink between MIG instances: no all-reduce floor
    # what a healthy 1g.5gb instance does passes; judged as a whole A100 it would fail
    gemm = Measurement(0.7 * slice_.peak_flops("bf16") / 1e9, "GFLOP/s")
    assert judge({"gemm": gemm}, slice_, None, 1e9)["gemm"].passed
    assert not judge({"gemm": gemm}, part, None, 1e9)["gemm"].passed
    # without the SM count (a result file read back), compute slices of 7
    assert hardware_class("a100-40gb-sxm-mig-3g.20gb").peak_flops("bf16") == pytest.approx(312e12 * 3 / 7)
    with pytest.raises(UnknownHardware):
        hardware_class("rtx4090-mig-1g.5gb")


def test_a_node_of_mixed_or_unknown_gpus_is_not_guessed_at():
    t4, a10g = (GpuProperties(**r["devices"][0]) for r in RECORDINGS if r["class"] in ("t4", "a10g"))
    with pytest.raises(UnknownHardware, match="different classes"):
        detect_gpu([t4, a10g], visible=0)
    unknown = GpuProperties(**RECORDINGS[-1]["devices"][0])
    with pytest.raises(UnknownHardware, match="RTX 4090"):
        detect_gpu([unknown], visible=0)
    eight = detect_gpu([t4] * 8, visible=8)
    assert eight.devices == [f"cuda:{i}" for i in range(8)] and eight.precision == "fp16"


def test_every_probe_runs_on_every_gpu_and_the_slowest_decides():
    rates = {"cuda:0": 700.0, "cuda:1": 690.0, "cuda:2": 150.0, "cuda:3": 705.0}
    seen = []

    def probe(device, budget):
        seen.append((device, budget))
        return Measurement(rates[device], "GFLOP/s")

    m = on_every_device(probe, list(rates))(8.0)
    assert [d for d, _ in seen] == list(rates) and all(b == 2.0 for _, b in seen)
    assert m.value == 150.0 and m.extra["slowest_device"] == "cuda:2"
    assert m.extra["per_device"] == rates


# Not `alone` (no torchrun is started): any verdict is accepted, and a rehearsal step of its tiny model takes well
# under a second of the probe's budget (12 s; 3 s a device for eight), so the other workers' load cannot cut it short.
@pytest.mark.parametrize("expected", ["t4", "a100-40gb-sxm", "h100-nvl", "a100-40gb-sxm-mig-1g.5gb"])
def test_sahab_bench_classifies_recorded_gpus_and_runs_the_train_step_at_their_precision(
        expected, tmp_path, run_sahab):
    recording = next(r for r in RECORDINGS if r["class"] == expected)
    props = tmp_path / "props.json"
    props.write_text(json.dumps(recording["devices"] * (8 if expected == "a100-40gb-sxm" else 1)))
    result = run_sahab("bench", "--probes", "train_step", "--format", "json", "--time-budget", "30",
                       env={GPU_PROPERTIES_ENV: str(props), "SAHAB_CPU_FLAGS": ""})
    assert result.returncode in (0, 1, 3), result.stderr[-2000:]  # a CPU is no GPU: it may well fail its floor
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["hardware_class"] == expected
    assert out["capability"]["source"] == "injected"
    step = out["probes"]["train_step"]
    precision = "fp16" if expected == "t4" else "bf16"
    assert out["precision"] == precision and step["precision"] == precision
    assert step["value"] and step["value"] > 0, step  # the step ran (fp16: with its gradient scaler)
    assert step["floor"] and step["floor_source"] == "catalog"


def test_a_bad_recording_is_one_error_line(tmp_path, run_sahab):
    bad = tmp_path / "props.json"
    bad.write_text('[{"name": "Tesla T4"}]')
    result = run_sahab("bench", "--probes", "gemm", env={GPU_PROPERTIES_ENV: str(bad)})
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("error:") and GPU_PROPERTIES_ENV in result.stderr
    assert "Traceback" not in result.stderr

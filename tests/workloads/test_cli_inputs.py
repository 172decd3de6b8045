"""Nonsense on the command line is one `error:` line and exit 2 before anything is measured or any worker
starts; outputs are checked writable before the work that would fill them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sahab.cli import main
from tests.workloads.workload_helpers import ROOT, sahab_env

TINY = ["--d-model", "64", "--n-layers", "2", "--n-heads", "2", "--seq-len", "32", "--skip-validation"]


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a worker would start or a node would be measured."""

    def refuse(*args, **kwargs):
        raise AssertionError("work started despite bad input")

    monkeypatch.setattr("sahab.workloads.train.launch.run_torchrun", refuse)
    monkeypatch.setattr("sahab.workloads.bench.validate.run_validation", refuse)
    monkeypatch.setattr("sahab.workloads.bench.capability.peak_flops", refuse)


def _one_error_line(capsys, *names: str) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    assert "Traceback" not in err[0]
    for name in names:
        assert name in err[0], err[0]
    return err[0]


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--lr", "nan"], ["--lr", "nan"]),
        (["--lr", "-0.1"], ["--lr", "above 0"]),
        (["--lr", "0"], ["--lr"]),
        (["--lr", "inf"], ["--lr"]),
        (["--lr", "fast"], ["--lr", "'fast'"]),
        (["--steps", "0"], ["--steps", "from 1"]),
        (["--steps", "-5"], ["--steps"]),
        (["--nproc", "0"], ["--nproc"]),
        (["--nproc", "100000"], ["--nproc", "to 256"]),
        (["--batch-size", "0"], ["--batch-size"]),
        (["--batch-size", "2.5"], ["--batch-size", "whole number"]),
        (["--grad-accum", "0"], ["--grad-accum"]),
        (["--checkpoint-every", "-1"], ["--checkpoint-every"]),
        (["--max-restarts", "1000"], ["--max-restarts"]),
        (["--d-model", "32768", "--n-layers", "64", "--n-heads", "64"], ["--d-model 32768", "GiB"]),
    ],
)
def test_nonsensical_numbers_stop_train_before_any_worker(args, names, capsys, no_work):
    assert main(["train", *TINY, *args]) == 2
    _one_error_line(capsys, *names)


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--s3-endpoint", "s3.auh.example.ae"], ["--s3-endpoint", "https://HOST"]),
        (["--s3-endpoint", "http://10.10.0.20:9000"], ["--s3-endpoint", "only on loopback"]),
        (["--s3-endpoint", "https://s3.example.ae/bucket"], ["--s3-endpoint"]),
        (["--s3-endpoint", "https://s3.example.ae:port"], ["--s3-endpoint"]),
        (["--s3-endpoint", "https://s3.example.ae", "--checkpoint-dir", "az://c1/x"], ["--s3-endpoint", "s3://"]),
    ],
)
def test_an_unusable_s3_endpoint_stops_train_before_any_worker(args, names, capsys, no_work):
    assert main(["train", *TINY, *args]) == 2
    _one_error_line(capsys, *names)


@pytest.mark.parametrize("peak", ["fast", "0", "-1e12", "nan", "inf"])
def test_a_peak_that_is_not_a_positive_number_stops_train_before_any_worker(peak, monkeypatch, capsys, no_work):
    monkeypatch.setenv("SAHAB_PEAK_FLOPS", peak)
    assert main(["train", *TINY]) == 2
    _one_error_line(capsys, "SAHAB_PEAK_FLOPS", repr(peak))


def test_the_images_worker_refuses_a_bad_peak_in_one_line_before_joining_its_group():
    """The image runs `python -m workloads.train` under torchrun; no rendezvous is set here, so a worker that got
    past the check would fail differently."""
    env = {**sahab_env(), "SAHAB_PEAK_FLOPS": "fast"}
    done = subprocess.run([sys.executable, "-m", "workloads.train", "--steps", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["error: SAHAB_PEAK_FLOPS: must be a positive number of FLOP/s per "
                                                "device (e.g. 3.12e14), not 'fast'"]


def test_a_checkpoint_dir_that_is_a_file_is_refused(tmp_path, capsys, no_work):
    afile = tmp_path / "ckpt"
    afile.write_text("not a directory")
    assert main(["train", *TINY, "--checkpoint-dir", str(afile)]) == 2
    _one_error_line(capsys, "--checkpoint-dir", "is a file")


def test_an_unwritable_checkpoint_dir_is_refused(capsys, no_work):
    # /proc takes no new directories, even from root (permission bits would not stop root)
    assert main(["train", *TINY, "--checkpoint-dir", "/proc/sahab-checkpoints"]) == 2
    _one_error_line(capsys, "--checkpoint-dir /proc/sahab-checkpoints", "cannot be written")


@pytest.mark.parametrize("option", ["--output", "--save-baseline"])
def test_bench_checks_its_outputs_before_measuring(option, tmp_path, capsys, no_work):
    assert main(["bench", option, "/proc/sahab/result.json"]) == 2
    _one_error_line(capsys, option, "cannot be written")
    assert main(["bench", option, str(tmp_path)]) == 2
    _one_error_line(capsys, option, "is a directory")


def test_bench_fleet_report_path_is_checked_before_reading_results(tmp_path, capsys, no_work):
    result = tmp_path / "node.json"
    result.write_text("{}")
    assert main(["bench", "--fleet-report", "/proc/sahab/fleet.html", "--results", str(result)]) == 2
    _one_error_line(capsys, "--fleet-report", "cannot be written")


@pytest.mark.parametrize("budget", ["1", "nan", "soon", "100000"])
def test_bench_time_budget_must_be_sensible(budget, capsys, no_work):
    assert main(["bench", "--time-budget", budget]) == 2
    _one_error_line(capsys, "--time-budget")


@pytest.mark.parametrize("content", [None, "[1, 2]"], ids=["missing", "not-a-baseline"])
def test_bench_refuses_an_unusable_baseline_before_loading_torch(content, tmp_path):
    """A typo in --baseline is one error line naming the option, given before torch (seconds of CPU) loads."""
    baseline = tmp_path / "baseline.json"
    if content is not None:
        baseline.write_text(content)
    probe = ("import sys; from sahab.cli import main; "
             f"code = main(['bench', '--baseline', {str(baseline)!r}]); print(code, 'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=sahab_env(), capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["2", "False"], done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    if content is None:  # argparse's check of the option, as for every file an option names
        assert line == f"error: sahab bench: argument --baseline: {baseline}: no such file; expected a baseline " \
                       "JSON file (--save-baseline)", line
    else:
        assert line.startswith(f"error: --baseline {baseline}: not a Sahab baseline"), line


@pytest.mark.parametrize("seconds", ["abc", "0", "-1", "nan", "inf", "1e30", "\u0661\u0660"])
def test_a_bad_distributed_timeout_stops_train_before_any_worker(seconds, monkeypatch, capsys, no_work):
    monkeypatch.setenv("SAHAB_DIST_TIMEOUT_S", seconds)
    assert main(["train", *TINY]) == 2
    message = _one_error_line(capsys, "SAHAB_DIST_TIMEOUT_S", repr(seconds))
    assert "allowed: a number of seconds from 1 to 86400" in message


def test_the_images_worker_refuses_a_bad_distributed_timeout_in_one_line():
    env = {**sahab_env(), "SAHAB_DIST_TIMEOUT_S": "abc"}
    done = subprocess.run([sys.executable, "-m", "workloads.train", "--steps", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["error: SAHAB_DIST_TIMEOUT_S: 'abc' is not allowed; allowed: a "
                                                "number of seconds from 1 to 86400"]

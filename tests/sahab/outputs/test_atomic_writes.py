"""Every report or output file is written all or nothing (workloads/outputs.py): a failure mid-write leaves the
old file as it was and no temporary behind; an evidence bundle folder is never left half written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sahab.workloads import outputs
from sahab.workloads.outputs import atomic_dir, write_atomic


def test_write_atomic_replaces_the_file_and_keeps_its_mode(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old")
    target.chmod(0o640)
    write_atomic(target, "new\n")
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["r.json"]


def test_a_new_file_gets_the_usual_mode(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "n.txt", b"x")
    finally:
        os.umask(old)
    assert (tmp_path / "n.txt").stat().st_mode & 0o777 == 0o644


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "keep.json"
    target.write_text("KEEP")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs.os, "fsync", full_disk)
    with pytest.raises(OSError):
        write_atomic(target, "a much longer report" * 1000)
    assert target.read_text() == "KEEP"
    assert os.listdir(tmp_path) == ["keep.json"]


def test_a_failed_bundle_leaves_no_folder_and_a_rerun_works(tmp_path):
    out = tmp_path / "bundle"
    with pytest.raises(RuntimeError), atomic_dir(out) as building:
        (building / "evidence.json").write_text("{}")
        raise RuntimeError("signing failed")
    assert os.listdir(tmp_path) == []
    with atomic_dir(out) as building:
        (building / "evidence.json").write_text("{}")
    assert sorted(os.listdir(out)) == ["evidence.json"]
    assert os.listdir(tmp_path) == ["bundle"]


def test_a_bundle_may_go_into_an_empty_folder_but_never_over_files(tmp_path):
    out = tmp_path / "bundle"
    out.mkdir()
    with atomic_dir(out) as building:
        (building / "a").write_text("1")
    assert os.listdir(out) == ["a"]
    with pytest.raises(OSError), atomic_dir(out) as building:
        (building / "b").write_text("2")
    assert os.listdir(out) == ["a"] and os.listdir(tmp_path) == ["bundle"]


@pytest.mark.parametrize("module", ["sahab/commands/check.py", "sahab/commands/registry.py",
                                    "sahab/commands/audit.py", "sahab/audit/evidence.py",
                                    "workloads/bench/report.py", "workloads/commands/bench.py",
                                    "sahab/registry/pin.py"])
def test_report_writers_go_through_write_atomic(module):
    source = (Path(__file__).resolve().parents[3] / module).read_text()
    assert "write_atomic(" in source
    assert ".write_text(" not in source and 'open(args.output, "w")' not in source


def test_a_symlink_keeps_pointing_at_the_rewritten_file(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_fifo_or_device_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_atomic(fifo, "through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert fifo.exists() and not fifo.is_file()
    write_atomic("/dev/null", "nothing")
    assert Path("/dev/null").is_char_device()

"""One `sahab check` run writes every format the workflow consumes; a bad --report is one error line."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def sahab(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sahab", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_one_run_writes_sarif_junit_json_and_text(tmp_path):
    done = sahab("check", "--stack", "smb", "--program", str(ROOT), "--format", "sarif",
                 "--output", str(tmp_path / "r.sarif"), "--report", f"junit={tmp_path / 'r.xml'}",
                 "--report", f"json={tmp_path / 'r.json'}", "--report", f"text={tmp_path / 'r.txt'}", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert done.stdout == ""  # machine output only in the files
    assert json.loads((tmp_path / "r.sarif").read_text())["version"] == "2.1.0"
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["stack"] == "smb"
    suites = ET.parse(tmp_path / "r.xml").getroot()
    assert int(suites.get("failures")) == report["summary"]["mandatory"] and suites.tag == "testsuites"
    assert "smb" in (tmp_path / "r.txt").read_text()


def test_a_malformed_report_option_is_one_error_line(tmp_path):
    done = sahab("check", "--stack", "smb", "--program", str(ROOT), "--report", "html=x.html", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: --report html=x.html") and done.stderr.count("\n") == 1


def test_every_destination_is_checked_before_any_is_written(tmp_path):
    """A --report whose folder is missing fails the run before the program runs, and the files the other
    options name are left exactly as they were."""
    keep = tmp_path / "keep.json"
    keep.write_text("KEEP\n")
    done = sahab("check", "--stack", "smb", "--program", str(ROOT), "-q", "--report", f"json={keep}",
                 "--report", f"sarif={tmp_path / 'nodir' / 'x.sarif'}", "--output", str(tmp_path / "o.txt"),
                 cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: --report sarif ") and "nodir" in done.stderr
    assert done.stderr.count("\n") == 1
    assert keep.read_text() == "KEEP\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.json"]

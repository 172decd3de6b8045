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

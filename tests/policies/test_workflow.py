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
    assert runs and "pack=policies" in runs[0]["run"] and '--policy-pack "$pack"' in runs[0]["run"]
    assert "steps.creds.outputs.run == 'true'" in runs[0]["if"]



def test_pull_requests_are_judged_by_the_base_branch_policy():
    steps = _steps("check")
    trusted = [s for s in steps if s.get("with", {}).get("path") == "trusted"]
    assert trusted and "github.event.pull_request.base.sha" in trusted[0]["with"]["ref"]
    (run,) = [s["run"] for s in steps if '/bin/sahab" check' in s.get("run", "")]
    assert '--waivers "$GITHUB_WORKSPACE/trusted/policies/waivers.yaml"' in run
    assert "trusted/policies/config/" in run and "--policy-config" in run
    assert "pr/policies" not in run
    install = [s["run"] for s in steps if "pip install" in s.get("run", "")]
    assert install and "./trusted" in install[0] and "-e" not in install[0].split()


def test_one_check_run_per_stack_writes_every_format():
    runs = [s["run"] for s in _steps("check") if '/bin/sahab" check' in s.get("run", "")]
    assert len(runs) == 1 and runs[0].count('/bin/sahab" check') == 1
    for fmt in ("--format sarif", "junit=", "json=", "text="):
        assert fmt in runs[0]


def test_actions_are_current_and_permissions_least_privilege():
    assert WORKFLOW["permissions"] == {}
    used = [s["uses"] for job in WORKFLOW["jobs"].values() for s in job["steps"] if "uses" in s]
    assert "actions/checkout@v6" in used and "github/codeql-action/upload-sarif@v4" in used
    assert not [u for u in used if u.endswith(("@v3", "@v4")) and u.startswith(("actions/", "github/"))
                and not u.startswith("github/codeql-action/upload-sarif@v4")]
    assert WORKFLOW["jobs"]["check"]["permissions"] == {"contents": "read", "actions": "read",
                                                       "security-events": "write"}
    assert WORKFLOW["jobs"]["comment"]["permissions"] == {"pull-requests": "write"}


def test_codeowners_guard_the_gate():
    owners = (ROOT / ".github" / "CODEOWNERS").read_text().splitlines()
    guarded = {line.split()[0] for line in owners if line and not line.startswith("#")}
    assert {"/policies/", "/stacks/", "/.github/workflows/"} <= guarded

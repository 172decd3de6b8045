"""The workflows hold no secret where unreviewed code runs, and enforce at `pulumi up`.

Read from the YAML of every workflow in .github/workflows: jobs a pull request can start have no secrets, no OIDC
token and read-only permissions; the check runs Sahab isolated with the base branch's policy; previews with
credentials wait for a protected environment; the deploy passes the pack and its config to `pulumi up`; every
action is pinned by commit SHA; CODEOWNERS covers what decides what is deployed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
WORKFLOWS = {p.name: yaml.safe_load(p.read_text()) for p in sorted((ROOT / ".github" / "workflows").glob("*.yml"))}
TEXT = {p.name: p.read_text() for p in sorted((ROOT / ".github" / "workflows").glob("*.yml"))}
# Events whose runs execute code a pull request wrote (pull_request_target runs the base, but is refused outright).
UNREVIEWED = {"pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment",
              "issue_comment"}
STACKS = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


def triggers(workflow: dict) -> set[str]:
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as True
    return {on} if isinstance(on, str) else set(on)


def runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job.get("steps", []))


def pr_jobs() -> list[tuple[str, str, dict]]:
    return [(file, name, job) for file, wf in WORKFLOWS.items() if triggers(wf) & UNREVIEWED
            for name, job in wf["jobs"].items()]


def test_the_checks_run_on_pull_requests_and_cover_every_stack():
    policy = WORKFLOWS["policy.yml"]
    assert "pull_request" in triggers(policy)
    assert sorted(policy["jobs"]["check"]["strategy"]["matrix"]["stack"]) == STACKS
    assert pr_jobs(), "no job runs on pull requests"


def test_no_job_a_pull_request_starts_holds_a_secret_or_a_token():
    for file, name, job in pr_jobs():
        text = yaml.safe_dump(job)
        assert "secrets." not in text, (file, name)
        assert "id-token" not in (job.get("permissions") or {}), (file, name)
        assert not job.get("environment"), (file, name)
        permissions = job.get("permissions")
        assert isinstance(permissions, dict), f"{file}:{name} inherits the workflow's permissions"
        assert set(permissions.values()) <= {"read", "none"}, (file, name, permissions)
    for file, wf in WORKFLOWS.items():
        assert wf.get("permissions") == {}, f"{file}: every job asks for what it needs"
        if triggers(wf) & UNREVIEWED:
            assert "secrets." not in TEXT[file] and "id-token: write" not in TEXT[file], file
            assert not wf.get("env"), file


def test_no_workflow_runs_pull_request_code_with_the_base_repositorys_rights():
    for file, wf in WORKFLOWS.items():
        assert "pull_request_target" not in triggers(wf), file
        if "workflow_run" in triggers(wf):  # privileged: reads the run's artifacts as data, runs nothing of them
            for job in wf["jobs"].values():
                uses = [s.get("uses", "") for s in job["steps"]]
                assert not [u for u in uses if u.startswith("actions/checkout")], file
                assert not runs(job).strip(), f"{file} runs shell commands"
                assert "head_sha" in yaml.safe_dump(job)  # results land on the commit that was checked


def test_the_check_runs_sahab_isolated_with_the_base_branchs_policy():
    check = WORKFLOWS["policy.yml"]["jobs"]["check"]
    steps = check["steps"]
    trusted = [s for s in steps if s.get("with", {}).get("path") == "trusted"]
    assert trusted and "github.event.pull_request.base.sha" in trusted[0]["with"]["ref"]
    (run,) = [s for s in steps if '/bin/sahab" check' in s.get("run", "")]
    assert '/bin/sahab" check --isolated ' in run["run"]
    assert run["working-directory"] == "${{ runner.temp }}"  # outside the pull request's checkout
    assert '--waivers "$GITHUB_WORKSPACE/trusted/policies/waivers.yaml"' in run["run"]
    assert "trusted/policies/config/" in run["run"] and "pr/policies" not in run["run"]
    install = [s["run"] for s in steps if "pip install" in s.get("run", "")]
    assert install and "./trusted" in install[0] and "--require-hashes" in install[0]
    for fmt in ("--format sarif", "junit=", "json=", "text="):
        assert fmt in run["run"]
    for s in steps:
        if s.get("uses", "").startswith("actions/checkout"):
            assert s["with"]["persist-credentials"] is False


def test_code_scanning_and_the_comment_come_from_the_privileged_report_workflow():
    report = WORKFLOWS["policy-report.yml"]
    assert triggers(report) == {"workflow_run"}
    assert report.get("on", report.get(True))["workflow_run"]["workflows"] == ["policy"]
    (job,) = report["jobs"].values()
    assert job["permissions"] == {"actions": "read", "security-events": "write", "pull-requests": "write"}
    uploads = [s for s in job["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert uploads and uploads[0]["with"]["sha"] == "${{ github.event.workflow_run.head_sha }}"
    script = yaml.safe_dump(job)
    assert "pr.data.head.sha !== process.env.HEAD_SHA" in script  # the number in the report is checked


def test_previews_with_credentials_wait_for_a_protected_environment_or_main():
    preview = WORKFLOWS["preview.yml"]
    assert triggers(preview) <= {"push", "workflow_dispatch"} and not triggers(preview) & UNREVIEWED
    push = preview.get("on", preview.get(True))["push"]
    assert push["branches"] == ["main"]
    (job,) = preview["jobs"].values()
    assert job["environment"] == "preview"
    assert job["permissions"] == {"contents": "read", "id-token": "write"}
    assert "secrets." not in TEXT["preview.yml"]  # OIDC only: nothing stored to steal
    auth = [s for s in job["steps"] if s.get("uses", "").startswith("pulumi/auth-actions@")]
    assert auth and auth[0]["with"]["requested-token-type"].endswith(":team")
    assert auth[0]["with"]["scope"].startswith("team:") and int(auth[0]["with"]["token-expiration"]) <= 3600
    command = runs(job)
    assert "pulumi preview" in command and '--policy-pack "$pack"' in command
    assert '--policy-pack-config "$config"' in command and "trusted/policies" in command


def test_the_deploy_enforces_with_the_pack_and_its_config_at_pulumi_up():
    deploy = WORKFLOWS["deploy.yml"]
    assert not triggers(deploy) & UNREVIEWED
    (job,) = deploy["jobs"].values()
    assert job["if"] == "github.ref == 'refs/heads/main'"
    assert job["environment"].startswith("deploy-")
    command = runs(job)
    (up,) = [line for line in command.splitlines() if "--policy-pack" in line]
    assert "pulumi up" in command and "--policy-pack policies" in up and '--policy-pack-config "$config"' in up
    assert "policies/config/$STACK_NAME.json" in command
    options = deploy.get("on", deploy.get(True))["workflow_dispatch"]["inputs"]["stack"]["options"]
    assert sorted(options) == STACKS


@pytest.mark.parametrize("file", sorted(WORKFLOWS))
def test_every_action_is_pinned_by_commit_sha_with_its_tag_beside_it(file):
    for line in TEXT[file].splitlines():
        if "uses:" not in line or line.strip().startswith("#"):
            continue
        match = re.search(r"uses:\s*([\w.-]+/[\w./-]+)@([0-9a-f]{40})\s+#\s*v\d+\.\d+\.\d+\s*$", line)
        assert match, f"{file}: not pinned by a full commit SHA with its tag as a comment: {line.strip()}"


def test_codeowners_cover_what_decides_what_is_deployed():
    owners = (ROOT / ".github" / "CODEOWNERS").read_text().splitlines()
    guarded = {line.split()[0] for line in owners if not line.startswith("#") and len(line.split()) > 1}
    assert {"/components/", "/sahab/", "/ansible/", "/Pulumi.yaml", "/stacks/", "/policies/", "/workloads/",
            "/.github/"} <= guarded


def test_the_threat_model_says_who_is_trusted_and_where_enforcement_lives():
    doc = (ROOT / "docs" / "security.md").read_text()
    for heading in ("## Who is trusted, and with what", "## What each check promises, and what it cannot",
                    "## Continuous integration: no job that runs unreviewed code holds a secret"):
        assert heading in doc
    for untrusted in ("A pull request's code", "The site network", "Whoever can write a checkpoint store"):
        assert untrusted in doc
    assert "pulumi up --policy-pack policies --policy-pack-config" in doc
    assert "a data disk that leaves alone" in doc  # what the LUKS key file on the root disk protects against
    readme = (ROOT / "README.md").read_text()
    assert "docs/security.md" in readme and "--policy-pack-config policies/config/prod.json" in readme
    pack_readme = (ROOT / "policies" / "README.md").read_text()  # published with the pack
    assert "pulumi up --policy-pack policies --policy-pack-config" in pack_readme
    assert "the enforcement point" in pack_readme
    # Every pinned action the workflows use is in the document's table, with the same commit.
    for text in TEXT.values():
        for repo, sha in re.findall(r"uses:\s*([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@([0-9a-f]{40})", text):
            assert sha in doc, (repo, sha)


def test_the_pull_request_check_fails_by_its_own_status_and_fences_the_report_safely():
    """The program's text reaches the job summary inside a fence longer than any run of backticks in it, and the
    check step's own exit status is the verdict (no later step trusts an output the program could append to)."""
    steps = WORKFLOWS["policy.yml"]["jobs"]["check"]["steps"]
    (check,) = [s for s in steps if s.get("id") == "check"]
    assert "echo '```'" not in check["run"] and 'echo "$fence"' in check["run"]
    assert 'if [ "$code" -ne 0 ]; then' in check["run"]
    assert not [s for s in steps if "steps.check.outputs" in str(s.get("if", ""))]

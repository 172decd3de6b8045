"""action.yml: the reusable GitHub Action's check step, run here as the runner would run it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
SAHAB = Path(sys.executable).parent / "sahab"


def _step(step_id: str) -> dict:
    (step,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == step_id]
    return step


def run_check(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess, dict, Path]:
    """The check step's script under bash, with the inputs as the action's env maps them."""
    step = _step("check")
    defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    given = {**defaults, **inputs}
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    for key, expr in step["env"].items():
        if expr.startswith("${{ inputs."):
            env[key] = given[expr.removeprefix("${{ inputs.").removesuffix(" }}")]
    env.update(SAHAB=str(SAHAB), RUNNER_TEMP=str(tmp_path / "temp"), GITHUB_WORKSPACE=str(tmp_path / "ws"),
               GITHUB_OUTPUT=str(tmp_path / "output"), GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))
    for folder in ("temp", "ws"):
        (tmp_path / folder).mkdir(exist_ok=True)
    done = subprocess.run(["bash", "-c", step["run"]], cwd=tmp_path / "temp", env=env, capture_output=True,
                          text=True, timeout=600)
    outputs = dict(line.split("=", 1) for line in (tmp_path / "output").read_text().splitlines()) \
        if (tmp_path / "output").exists() else {}
    return done, outputs, tmp_path / "ws"


def test_the_action_takes_the_inputs_the_issue_names():
    assert {"stack", "program", "formats", "fail-on"} <= set(ACTION["inputs"])
    uses = [s.get("uses", "") for s in ACTION["runs"]["steps"]]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    # every input reaches a script through env, never pasted into it (no script injection from a workflow)
    assert not [s["name"] for s in ACTION["runs"]["steps"] if "${{ inputs." in s.get("run", "")]


def test_a_stack_is_checked_with_reports_summary_and_fail_on(tmp_path):
    done, outputs, ws = run_check(tmp_path, stack="smb", program=str(ROOT), formats="sarif,junit",
                                  **{"fail-on": "advisory"})
    # smb passes (no mandatory violation) but carries advisory ones: fail-on advisory fails it, the step itself
    assert done.returncode == 1, done.stderr[-3000:]
    assert sorted(p.name for p in (ws / "sahab-reports").iterdir()) == ["sahab-smb.junit.xml", "sahab-smb.sarif"]
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("### sahab check: smb\n```\n") and "advisory" in summary
    assert outputs["failed"] == "true" and "::error::sahab check --stack smb" in done.stdout
    assert outputs["reports"] == str(ws / "sahab-reports")


@pytest.mark.parametrize(("inputs", "named"), [({"fail-on": "sometimes"}, "fail-on"), ({"formats": "pdf"}, "formats"),
                                               ({"stack": " , "}, "stack")])
def test_bad_inputs_are_one_error_line_and_exit_2(tmp_path, inputs, named):
    done, _, _ = run_check(tmp_path, **{"stack": "smb", **inputs})
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {named}: ") and len(done.stderr.strip().splitlines()) == 1


def test_the_readme_uses_the_action_and_the_hook_as_they_are():
    import re

    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)]
    steps = [s for b in blocks if isinstance(b, dict) and "jobs" in b for job in b["jobs"].values()
             for s in job["steps"] if s.get("uses", "").startswith("OWNER/sahab@")]
    assert steps and set(steps[0]["with"]) <= set(ACTION["inputs"])
    # a job that runs a pull request's program keeps no token in the checkout's git config
    checkouts = [s for b in blocks if isinstance(b, dict) and "jobs" in b for job in b["jobs"].values()
                 for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts and all(s.get("with", {}).get("persist-credentials") is False for s in checkouts)
    assert {n for n, spec in ACTION["inputs"].items() if spec.get("required")} <= set(steps[0]["with"])
    hooks = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    used = [h["id"] for b in blocks if isinstance(b, dict) and "repos" in b for r in b["repos"] for h in r["hooks"]]
    assert used and set(used) <= hooks


def _program(folder: Path, main: str, project: str = "name: probe\nruntime: python\n") -> Path:
    folder.mkdir(parents=True)
    (folder / "Pulumi.yaml").write_text(project)
    (folder / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (folder / "__main__.py").write_text(main)
    return folder


LEAKY = "import pulumi_aws as aws\naws.ebs.Volume('vol', availability_zone='us-east-1a', size=10, encrypted=False)\n"


def test_a_committed_virtualenv_does_not_decide_the_verdict(tmp_path):
    """A pull request names a virtualenv whose `python` runs a harmless program instead of the one under check:
    the action runs the program on Sahab's own interpreter (`--isolated`), which registers the leaky volume."""
    program = _program(tmp_path / "ws" / "pr", LEAKY,
                       "name: probe\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n")
    (program / "venv" / "bin").mkdir(parents=True)
    (program / "venv" / "benign").mkdir()
    (program / "venv" / "benign" / "__main__.py").write_text("import pulumi\n")
    fake = program / "venv" / "bin" / "python"
    fake.write_text("#!/bin/sh\n# the last argument is the program: run the harmless one instead\n"
                    'n=$#; i=0; for a in "$@"; do i=$((i+1)); '
                    f'if [ $i -eq $n ]; then set -- "$@" "{program}/venv/benign"; else set -- "$@" "$a"; fi; done\n'
                    f'shift $n\nexec {sys.executable} "$@"\n')
    fake.chmod(0o755)
    done, outputs, ws = run_check(tmp_path, stack="dev", program="pr", formats="json")
    assert done.returncode == 1 and outputs["failed"] == "true", done.stderr[-3000:]
    assert "SAHAB-AWS-001" in (ws / "sahab-reports" / "sahab-dev.json").read_text()
    # the documented opt-out, for trusted code: the program's own virtualenv, here the harmless program
    (tmp_path / "trusted").mkdir()
    trusted, outputs, _ = run_check(tmp_path / "trusted", stack="dev", program=str(program), formats="json",
                                    isolated="false")
    assert trusted.returncode == 0 and outputs["failed"] == "false", trusted.stderr[-3000:]


def test_the_verdict_is_the_exit_status_and_stdout_never_a_file_the_program_can_rewrite():
    script = _step("check")["run"]
    assert "--output" not in script and 'verdict=$("$SAHAB" check "${isolated[@]}" ' in script
    assert "code=$?" in script and 'json.load(sys.stdin)' in script
    # the check step's own status fails the job: no later step decides from an output a process could forge
    assert not [s for s in ACTION["runs"]["steps"] if "steps.check.outputs.failed" in str(s.get("if", ""))]


def test_a_resource_name_cannot_forge_the_job_summary(tmp_path):
    name = "x\n```\n## Sahab check: PASSED, 0 violations\n````\n\x1b[32mok"
    _program(tmp_path / "ws" / "pr", f"import pulumi_aws as aws\naws.s3.BucketV2({name!r})\n")
    done, outputs, _ = run_check(tmp_path, stack="dev", program="pr", formats="text")
    assert done.returncode == 1 and outputs["failed"] == "true", done.stderr[-3000:]
    lines = (tmp_path / "summary.md").read_text().splitlines()
    fence = lines[1]
    assert lines[0] == "### sahab check: dev" and set(fence) == {"`"} and lines[-1] == fence
    inside = lines[2:-1]
    assert len(fence) > max(len(run) for line in inside for run in re.findall("`+", line))
    assert not [line for line in inside if line.lstrip().startswith(("#", "`"))]
    assert not [line for line in inside if "\x1b" in line]
    assert "x\\n```\\n## Sahab check: PASSED" in "\n".join(inside)

"""The evidence workflow: every stack, on the default branch and on tags only (it holds the signing key), actions
pinned by commit, each bundle verified before it is kept."""

from __future__ import annotations

import re

import yaml

from tests.sahab.evidence.conftest import ROOT

TEXT = (ROOT / ".github" / "workflows" / "evidence.yml").read_text()
WORKFLOW = yaml.safe_load(TEXT)


def test_runs_on_main_and_tags_never_on_pull_requests():
    triggers = WORKFLOW.get("on", WORKFLOW.get(True))  # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["branches"] == ["main"] and triggers["push"]["tags"]
    assert "pull_request" not in triggers and "pull_request_target" not in triggers


def test_every_stack_gets_a_verified_bundle():
    files = (ROOT / "stacks").glob("Pulumi.*.yaml")
    stacks = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in files)
    job = WORKFLOW["jobs"]["bundle"]
    assert sorted(job["strategy"]["matrix"]["stack"]) == stacks
    script = " ".join(s.get("run", "") for s in job["steps"])
    assert 'evidence --stack "$STACK"' in script and "evidence verify" in script
    env = next(s["env"] for s in job["steps"] if "env" in s)
    assert env["EVIDENCE_KEY"] == "${{ secrets.SAHAB_EVIDENCE_KEY }}"


def test_actions_are_pinned_by_commit():
    uses = re.findall(r"uses:\s*(\S+)(.*)", TEXT)
    assert uses
    for action, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", action), action
        assert re.search(r"#\s*v\d+\.\d+\.\d+", comment), f"{action}: say which release the commit is"

"""The release workflow: artifacts built and checked on every push, published with trusted publishing on a tag."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
TRIGGERS = WORKFLOW[True]  # YAML 1.1 reads the key `on` as true


def test_every_push_builds_and_checks_the_sdist_and_wheel():
    # every branch's push; never a pull request's run, which may hold no token (the publish job holds one)
    assert "pull_request" not in TRIGGERS and TRIGGERS["push"]["branches"] == ["**"]
    build = WORKFLOW["jobs"]["build"]
    assert "if" not in build
    script = "\n".join(step.get("run", "") for step in build["steps"])
    assert "--require-hashes" in script and "-r requirements-release.lock" in script
    assert "-m build --no-isolation" in script and "twine check --strict dist/*" in script
    assert build["permissions"] == {"contents": "read"}


def test_a_tag_publishes_with_trusted_publishing_and_nothing_else_can():
    assert TRIGGERS["push"]["tags"] == ["v*"]
    publish = WORKFLOW["jobs"]["publish"]
    assert publish["needs"] == "build" and "refs/tags/v" in publish["if"]
    assert publish["permissions"] == {"id-token": "write"} and publish["environment"]["name"] == "pypi"
    (upload,) = [s for s in publish["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")]
    assert not upload.get("with")  # no password, no token: OIDC only
    assert WORKFLOW["permissions"] == {}
    others = [name for name, job in WORKFLOW["jobs"].items() if "id-token" in (job.get("permissions") or {})]
    assert others == ["publish"]


def test_ci_has_pip_resolve_every_lock_for_other_machines():
    script = "\n".join(step.get("run", "") for step in WORKFLOW["jobs"]["locks"]["steps"])
    assert "tools/lock.py verify" in script and "--require-hashes" in script


def test_the_changelog_has_a_section_for_the_version_a_tag_would_publish():
    from sahab.version import pyproject_version

    headings = [line for line in (ROOT / "CHANGELOG.md").read_text().splitlines() if line.startswith("## [")]
    assert f"## [{pyproject_version(ROOT / 'pyproject.toml')}]" in headings
    script = "\n".join(step.get("run", "") for step in WORKFLOW["jobs"]["build"]["steps"])
    assert 'grep -qxF "## [$version]" CHANGELOG.md' in script

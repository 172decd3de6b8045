"""`pip install sahab` as a user gets it: the wheel alone, in a virtualenv that never saw this checkout
(the `wheel` and `wheel_venv` fixtures in tests/conftest.py; the corpus runs through it too)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import quiet_env as _quiet_env

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow


def test_the_wheel_carries_the_rules_waivers_playbook_and_roles(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("policies/rules/aws_s3.py", "policies/waivers.yaml", "policies/iam/auditor-policy.json",
                   "policies/PulumiPolicy.yaml", "sahab/playbook/site.yml", "sahab/playbook/ansible.cfg",
                   "sahab/playbook/roles/sahab_os/tasks/main.yml",
                   "sahab/playbook/roles/sahab_kubernetes/templates/kubeletconfiguration.yaml.j2",
                   "sahab/playbook/filter_plugins/sahab_kubeadm.py",
                   "sahab/engine/langhost/sahab-language-python-exec"):
        assert needed in names, needed
    roles = {n.split("/")[3] for n in names if n.startswith("sahab/playbook/roles/")}
    assert roles == {p.name for p in (ROOT / "ansible" / "roles").iterdir() if p.is_dir()}
    assert not any(n.startswith(("tests/", "stacks/", "ansible/")) for n in names)


def test_the_installed_wheel_checks_a_stack_folder_from_another_directory(wheel_venv, tmp_path):
    """A fleet repository as users keep it (the program and its components); the program imports its own
    components, never the wheel's."""
    program = tmp_path / "fleet"
    program.mkdir()
    shutil.copy2(ROOT / "Pulumi.yaml", program / "Pulumi.yaml")
    for folder in ("stacks", "components", "workloads"):
        shutil.copytree(ROOT / folder, program / folder, ignore=shutil.ignore_patterns("__pycache__"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([str(wheel_venv / "bin" / "sahab"), "check", "--program", str(program), "--stack", "smb",
                           "--format", "json"], cwd=elsewhere, env=_quiet_env(), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["summary"]["stack"] == "smb" and report["summary"]["resources"] > 10


def test_the_installed_wheel_outside_any_project_says_so_and_judges_nothing(wheel_venv, tmp_path):
    done = subprocess.run([str(wheel_venv / "bin" / "sahab"), "check", "--stack", "dev"], cwd=tmp_path,
                          env=_quiet_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: no Pulumi.yaml in {tmp_path}") and len(done.stderr.splitlines()) == 1


def test_the_installed_wheel_serves_its_own_files(wheel_venv, tmp_path):
    probe = ("import json, sahab, policies.pack, components.onprem.runner as r, sahab.audit.permissions as p;"
             "print(json.dumps({'sahab': sahab.__file__, 'policies': len(policies.pack.POLICIES),"
             "'playbook': str(r.ANSIBLE_DIR), 'site': (r.ANSIBLE_DIR / 'site.yml').is_file(),"
             "'auditor': p.AUDITOR_POLICY.is_file()}))")
    done = subprocess.run([str(wheel_venv / "bin" / "python"), "-c", probe], cwd=tmp_path, env=_quiet_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    site = wheel_venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    assert found["sahab"] == str(site / "sahab" / "__init__.py")
    assert found["policies"] > 10
    assert found["playbook"].endswith("site-packages/sahab/playbook") and found["site"] and found["auditor"]


def test_the_runtime_lock_is_all_the_wheel_needs(wheel_venv):
    done = subprocess.run([str(wheel_venv / "bin" / "python"), "-m", "pip", "check"], env=_quiet_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout


def test_every_package_of_the_tree_is_listed_for_the_wheel():
    """The layout is flat with an explicit package list: a new package left off it is missing from the wheel."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {str(init.parent.relative_to(ROOT)).replace("/", ".")
             for top in ("sahab", "components", "policies", "workloads") for init in (ROOT / top).rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)

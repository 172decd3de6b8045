"""The pre-commit hook's choice of what to check (sahab/precommit.py, .pre-commit-hooks.yaml)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from sahab.precommit import main, stacks_to_check

ROOT = Path(__file__).resolve().parents[3]


def _program(folder: Path, stacks: tuple[str, ...], config_dir: str = "stacks") -> Path:
    (folder / config_dir).mkdir(parents=True)
    (folder / "Pulumi.yaml").write_text(
        f"name: p\nruntime: python\nmain: {config_dir}/\nstackConfigDir: {config_dir}\n")
    (folder / config_dir / "__main__.py").write_text("")
    for stack in stacks:
        (folder / config_dir / f"Pulumi.{stack}.yaml").write_text("config: {}\n")
    return folder


def test_a_stack_file_checks_that_stack_and_code_checks_every_stack(tmp_path):
    one = _program(tmp_path / "one", ("dev", "prod"))
    two = _program(tmp_path / "infra" / "two", ("smb",), config_dir="cfg")
    (tmp_path / "notes.py").write_text("")
    assert stacks_to_check([str(one / "stacks" / "Pulumi.prod.yaml")]) == {one: {"prod"}}
    assert stacks_to_check([str(one / "stacks" / "__main__.py"), str(two / "cfg" / "Pulumi.smb.yaml"),
                            str(tmp_path / "notes.py")]) == {one: {"dev", "prod"}, two: {"smb"}}
    assert stacks_to_check([str(one / "stacks" / "Pulumi.gone.yaml")]) == {}  # a deleted stack


def test_a_broken_project_file_is_one_error_line(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: nodejs\n")
    (tmp_path / "index.py").write_text("")
    assert main([str(tmp_path / "index.py")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "runtime" in err and len(err.strip().splitlines()) == 1


def test_the_hook_runs_the_module_on_the_files_that_change_a_verdict():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "sahab-check" and hook["entry"] == "sahab-precommit"
    assert hook["language"] == "python"
    files = re.compile(hook["files"])
    for changed in ("stacks/__main__.py", "stacks/Pulumi.prod.yaml", "Pulumi.yaml", "policies/config/prod.json"):
        assert files.search(changed), changed
    for unrelated in ("README.md", "docs/Pulumi.md", "waivers.txt"):
        assert not files.search(unrelated), unrelated


def test_no_module_of_the_checked_repository_stands_in_for_sahab_or_the_stdlib(tmp_path):
    """pre-commit runs the hook's entry in the repository's root: a `sahab/` package and an `argparse.py` there
    (each would exit 0 as a passing check does) run nowhere, and the program gets its mandatory violations."""
    import os
    import shlex
    import subprocess
    import sys

    repo = tmp_path / "repo"
    (repo / "sahab").mkdir(parents=True)
    marker = tmp_path / "shadowed"
    shadow = f"import sys\nopen({str(marker)!r}, 'a').write(__name__ + '\\n')\nsys.exit(0)\n"
    for name in ("sahab/__init__.py", "sahab/__main__.py", "sahab/precommit.py", "sahab/cli.py", "argparse.py"):
        (repo / name).write_text(shadow)
    (repo / "Pulumi.yaml").write_text("name: shadow\nruntime: python\n")
    (repo / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (repo / "__main__.py").write_text("import pulumi_aws as aws\n"
                                      "aws.ebs.Volume('vol', availability_zone='us-east-1a', size=10)\n")
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    bin_dir = Path(sys.executable).parent  # where pre-commit's hook environment puts the package's scripts
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([*shlex.split(hook["entry"]), "Pulumi.dev.yaml", "__main__.py"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 1, done.stderr[-2000:]
    assert "SAHAB-AWS-001" in done.stdout
